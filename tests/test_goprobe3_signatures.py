"""A Go function whose parameter list is written one parameter a line ends it with the comma Go
requires before the closing parenthesis on its own line; outlines and answers showed that
comma (`func (s *packetManager) newOrderedResponse(p responsePacket, id uint32, ) orderedResponse`,
pkg/sftp). The signature now reads as the declaration would on one line."""
from __future__ import annotations

from cruxe.languages.go import extract

SOURCE = b'''package a

type Sender interface {
	Send(
		to string,
		body []byte,
	) error
}

func (s *manager) newOrderedResponse(p responsePacket, id uint32,
) orderedResponse {
	return orderedResponse{}
}

func Run(
	ctx context.Context,
	args ...string,
) (err error) {
	return nil
}

func pair(a, b int) (int, int) { return a, b }
'''


def test_a_parameter_list_closing_on_its_own_line_leaves_no_comma_in_the_signature():
    sigs = {s.name: s.signature for s in extract(SOURCE, "a/a.go").symbols}
    assert sigs["newOrderedResponse"] == ("func (s *manager) newOrderedResponse(p responsePacket, id uint32) "
                                          "orderedResponse")
    assert sigs["Run"] == "func Run(ctx context.Context, args ...string) (err error)"
    assert sigs["Send"] == "Send(to string, body []byte) error"
    assert sigs["pair"] == "func pair(a, b int) (int, int)"
