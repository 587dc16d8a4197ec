; Go: calls and uses of named types, one pass over the tree (go.py reads the matches).
; Definitions are not found here: only top-level declarations are definitions in Go, and go.py
; reads them from the file's direct children, each with its doc comment.
; Capture names are the contract with go.py:
;   callee     the called name; recv the receiver expression or package of a qualified callee
;   tref       a use of a named type
;   tdecl      the name a type spec or alias defines (not a use)
;   tpkg, tqual   the package and name of a qualified type (`pkg.T`)

; ---- calls
(call_expression function: (identifier) @callee)
(call_expression function: (selector_expression operand: (_) @recv field: (field_identifier) @callee))
(call_expression function: (index_expression operand: (identifier) @callee))
(call_expression function: (index_expression
  operand: (selector_expression operand: (_) @recv field: (field_identifier) @callee)))
(call_expression function: (parenthesized_expression (identifier) @callee))
; The grammar reads an explicitly instantiated generic call `F[int](x)` as a conversion to a
; generic type; it is far more often a call, so these two count it as one.
(type_conversion_expression type: (generic_type type: (type_identifier) @callee))
(type_conversion_expression type: (generic_type
  type: (qualified_type package: (package_identifier) @recv name: (type_identifier) @callee)))

; ---- uses of named types (`var s Server`, `[]*pkg.Item`, `Point{1, 2}`, receivers, generics)
; The names type specs define and the package of a qualified type are captured too, so that
; go.py never asks a node for its parent (tree-sitter finds one by walking down from the root).
(type_identifier) @tref
(type_spec name: (type_identifier) @tdecl)
(type_alias name: (type_identifier) @tdecl)
(qualified_type package: (_) @tpkg name: (type_identifier) @tqual)
