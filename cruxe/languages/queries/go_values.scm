; Go: uses of names as values, read by go.py (`_Values`) from one `captures` pass (a
; match per identifier would cost a dict each). Capture names are the contract with go.py:
;   vref   every identifier; vdecl  a name declared (a parameter, `:=`, `var`, ...);
;   vkey   a struct literal's key; vsel  a selector `x.f` whose operand is a name
(identifier) @vref
(keyed_element . (literal_element (identifier) @vkey))
(selector_expression operand: (identifier) field: (field_identifier)) @vsel
(function_declaration name: (identifier) @vdecl)
(parameter_declaration name: (identifier) @vdecl)
(variadic_parameter_declaration name: (identifier) @vdecl)
(type_parameter_declaration name: (identifier) @vdecl)
(short_var_declaration left: (expression_list (identifier) @vdecl))
(range_clause left: (expression_list (identifier) @vdecl))
(type_switch_statement alias: (expression_list (identifier) @vdecl))
(receive_statement left: (expression_list (identifier) @vdecl))
(var_spec name: (identifier) @vdecl)
(const_spec name: (identifier) @vdecl)
