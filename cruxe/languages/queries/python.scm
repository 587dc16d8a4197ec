; Python: one query, one pass over the tree (python.py reads it with captures(): a list per
; capture name, not in source order). Capture names are the contract with python.py:
;   def        a def or class (python.py reads its name, header, docstring and decorators)
;   callee     the called name of a call; callattr the attribute callee whose object is the receiver
;   import     an import statement (python.py flattens its names and aliases)
;   obj        the object of an attribute, a use whose attribute may be read too
;   objset     the same object where the attribute is bound, not read (`self.x = 1`)
;   name       any other use of a name
;   local      a function-local binding (parameters, assignment and loop targets)
;   global     a name a `global` statement declares
;   sup, sattr, sattribute   `super().name` read as a value
;   lvassign   `name = value` / `name: T = ...`: a local whose type the statement may show
;              (a constructor call, `x or Call(...)`, an annotation, a literal)
;   walrus     the name `name := value` binds (also captured as a `name`: python.py's
;              typed_locals only needs to know that it rebinds the name there)
; One pass, not a second query for the uses: the walk is most of a query's cost.

; ---- definitions
(function_definition name: (identifier)) @def
(class_definition name: (identifier)) @def

; ---- calls
(call function: (identifier) @callee)
(call function: (attribute object: (_) attribute: (identifier) @callee) @callattr)

; ---- imports
(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import

; ---- uses of names that are not calls
; The identifier places that can be a use or a binding, by parent type (the node types of
; tree-sitter-python 0.25's node-types.json with identifier children, `as_pattern_target`, an
; alias it leaves out, and ERROR for broken code), each captured as what it is there, so that
; python.py never asks a node for its parent (tree-sitter finds a parent by searching down from
; the root). Left out on purpose, each never a use: attribute names (`x.attr`), callees,
; definition names, dotted names in imports and keyword argument names.
; tests/test_extract_python.py checks these patterns against every identifier of real code.
(attribute object: (identifier) @obj)
; `obj.attr` bound, not read (`self.x = 1`, `for a.b in`...): the attribute's role by its parent.
; The other non-use places of an attribute are impossible to tree-sitter or a call's callee.
(list_splat_pattern (attribute object: (identifier) @objset))
(dictionary_splat_pattern (attribute object: (identifier) @objset))
(pattern_list (attribute object: (identifier) @objset))
(tuple_pattern (attribute object: (identifier) @objset))
(list_pattern (attribute object: (identifier) @objset))
(as_pattern_target (attribute object: (identifier) @objset))
(assignment left: (attribute object: (identifier) @objset))
(augmented_assignment left: (attribute object: (identifier) @objset))
(for_statement left: (attribute object: (identifier) @objset))
(for_in_clause left: (attribute object: (identifier) @objset))
(keyword_argument value: (identifier) @name)
(argument_list (identifier) @name)
(as_pattern_target (identifier) @local)
(as_pattern (identifier) @name)
(assert_statement (identifier) @name)
(assignment left: (identifier) @local)
(assignment right: (identifier) @name)
(augmented_assignment left: (identifier) @local)
(augmented_assignment right: (identifier) @name)
(await (identifier) @name)
(binary_operator (identifier) @name)
(boolean_operator (identifier) @name)
(chevron (identifier) @name)
(comparison_operator (identifier) @name)
(conditional_expression (identifier) @name)
(decorator (identifier) @name)
(default_parameter name: (identifier) @local)
(default_parameter value: (identifier) @name)
(delete_statement (identifier) @name)
(dictionary_splat (identifier) @name)
(dictionary_splat_pattern (identifier) @local)
(elif_clause (identifier) @name)
(except_clause (identifier) @name)
(exec_statement (identifier) @name)
(expression_list (identifier) @name)
(expression_statement (identifier) @name)
(for_in_clause left: (identifier) @local)
(for_in_clause right: (identifier) @name)
(for_statement left: (identifier) @local)
(for_statement right: (identifier) @name)
(format_expression (identifier) @name)
(generator_expression (identifier) @name)
(generic_type (identifier) @name)
(global_statement (identifier) @global)
(if_clause (identifier) @name)
(if_statement (identifier) @name)
(interpolation (identifier) @name)
(keyword_pattern (identifier) @name)
(lambda (identifier) @name)
(lambda_parameters (identifier) @local)
(list (identifier) @name)
(list_comprehension (identifier) @name)
(list_pattern (identifier) @local)
(list_splat (identifier) @name)
(list_splat_pattern (identifier) @local)
(match_statement (identifier) @name)
(member_type (identifier) @name)
(named_expression (identifier) @name)
(nonlocal_statement (identifier) @local)
(not_operator (identifier) @name)
(pair (identifier) @name)
(parameters (identifier) @local)
(parenthesized_expression (identifier) @name)
(pattern_list (identifier) @local)
(print_statement (identifier) @name)
(raise_statement (identifier) @name)
(return_statement (identifier) @name)
(set (identifier) @name)
(set_comprehension (identifier) @name)
(slice (identifier) @name)
(splat_pattern (identifier) @name)
(splat_type (identifier) @name)
(subscript (identifier) @name)
(tuple (identifier) @name)
(tuple_pattern (identifier) @local)
(type (identifier) @name)
(typed_default_parameter name: (identifier) @local)
(typed_default_parameter value: (identifier) @name)
(typed_parameter (identifier) @local)
(unary_operator (identifier) @name)
(while_statement (identifier) @name)
(with_item (identifier) @name)
(yield (identifier) @name)
(ERROR (identifier) @name)

; ---- `super().method` used as a value
(attribute object: (call function: (identifier) @sup arguments: (argument_list . ")"))
           attribute: (identifier) @sattr) @sattribute

; ---- locals whose assignment may show their class (python.py's typed_locals)
(assignment left: (identifier) right: (_)) @lvassign
(assignment left: (identifier) type: (type)) @lvassign
(named_expression name: (identifier) @walrus)
