;; TypeScript, TSX and JavaScript: one query per grammar, made of the sections below in the
;; order typescript._SECTIONS lists for it (the grammars share most patterns, but not all node
;; types: `field_definition` is JavaScript's, `public_field_definition` TypeScript's).
;; typescript.py routes each match by its first capture (typescript._READERS,
;; `_common.by_reader`): every capture of one pattern goes to the same reader. Capture names
;; are the contract with typescript.py:
;;   def, vars, member, global, cjs (lhs, rhs), exported   definitions, and names `export`ed
;;   wrapper, wrapped, before, after   the context around a definition (export/declare around
;;       it, the comment or decorator right before it), so that no hook asks a node for its
;;       parent or previous sibling: tree-sitter answers those by walking down from the root,
;;       which makes deeply nested input (a 2,000-member union type) quadratic
;;   call, new, cname, crecv, dynimport, jsxname, import, isrc, reexport, esrc, lexport, lclause,
;;       aname, avalue, rname, rsrc
;;       calls, `new`, component tags and imports
;;   tref, vref, pref, mref, mobj   uses of types and of names as values
;;   tdecl, tparam, vdecl, pwrite   names being declared there (not uses); jsxend, a closing tag's names
;;   lscope   the blocks, functions, catch clauses and loops a declared name is seen in
;;   tmodule, tnested   `ns.Type`
;;   lvname, lvtype, lvnew, lvcall, lvread   local variables (and function values' parameters) whose type their declaration shows
;;   lvprop   a name destructured from a member read (`let {schema} = view.state`) or from a
;;       call's result (`const {link, unlink} = createReactiveSystem()`)
;;   cbfn, cbnew, cbarrow   functions passed to a call or `new` (their parameters' types)

;; section: ts-defs
[(function_declaration) (generator_function_declaration) (function_signature)
 (class_declaration) (abstract_class_declaration) (interface_declaration)
 (type_alias_declaration) (enum_declaration) (internal_module) (module)
 (method_definition) (method_signature) (abstract_method_signature)
 (public_field_definition) (property_signature) (enum_assignment)] @def
(enum_body name: (_) @member)
(ambient_declaration "global" (statement_block)) @global
; `{ m: () => {} }` is the method `{ m() {} }` written as a pair; `x.m = () => {}` in a body
; implements x's member there (TanStack Table's features do nothing else); at the top
; level the CommonJS-style assignments, as in JavaScript
(pair key: (_) value: [(arrow_function) (function_expression) (generator_function)]) @def
(statement_block (expression_statement (assignment_expression
   left: (member_expression object: (identifier) property: (property_identifier)) @mlhs
   right: [(arrow_function) (function_expression) (generator_function)] @mrhs)) @massign)
(program (expression_statement (assignment_expression
   left: (member_expression) @lhs right: (_) @rhs)) @cjs)

;; section: js-defs
[(function_declaration) (generator_function_declaration) (class_declaration)
 (method_definition) (field_definition)] @def
(program (expression_statement (assignment_expression
   left: (member_expression) @lhs right: (_) @rhs)) @cjs)

;; section: context
(export_statement declaration: (_) @wrapped) @wrapper
((comment) @before . (_) @after)
((decorator) @before . (_) @after)

;; section: ts-context
(ambient_declaration (_) @wrapped) @wrapper
(expression_statement (internal_module) @wrapped) @wrapper

;; section: ts-vars
; Module-level variables only: the file, and namespace/module bodies (as the compiler's
; VariableStatement-in-SourceFile-or-ModuleBlock), directly or behind `export`/`declare`.
(program [(lexical_declaration) (variable_declaration)] @vars)
(program (export_statement declaration: [(lexical_declaration) (variable_declaration)] @vars))
(program (ambient_declaration [(lexical_declaration) (variable_declaration)] @vars))
(program (export_statement declaration: (ambient_declaration [(lexical_declaration) (variable_declaration)] @vars)))
(internal_module body: (statement_block [(lexical_declaration) (variable_declaration)] @vars))
(internal_module body: (statement_block
  (export_statement declaration: [(lexical_declaration) (variable_declaration)] @vars)))
(internal_module body: (statement_block
  (ambient_declaration [(lexical_declaration) (variable_declaration)] @vars)))
(internal_module body: (statement_block
  (export_statement declaration: (ambient_declaration [(lexical_declaration) (variable_declaration)] @vars))))
(module body: (statement_block [(lexical_declaration) (variable_declaration)] @vars))
(module body: (statement_block
  (export_statement declaration: [(lexical_declaration) (variable_declaration)] @vars)))
(module body: (statement_block (ambient_declaration [(lexical_declaration) (variable_declaration)] @vars)))
(module body: (statement_block
  (export_statement declaration: (ambient_declaration [(lexical_declaration) (variable_declaration)] @vars))))
(ambient_declaration (statement_block [(lexical_declaration) (variable_declaration)] @vars))
(ambient_declaration (statement_block
  (export_statement declaration: [(lexical_declaration) (variable_declaration)] @vars)))
(ambient_declaration (statement_block
  (ambient_declaration [(lexical_declaration) (variable_declaration)] @vars)))
(ambient_declaration (statement_block
  (export_statement declaration: (ambient_declaration [(lexical_declaration) (variable_declaration)] @vars))))

;; section: js-vars
(program [(lexical_declaration) (variable_declaration)] @vars)
(program (export_statement declaration: [(lexical_declaration) (variable_declaration)] @vars))

;; section: namespace-objects
; A module-level object's properties made by a call or naming a value (`export const http = {
; get: createHttpHandler('GET') }`, msw's namespaces): the namespace's members (`http.get`).
(program (lexical_declaration (variable_declarator
  value: (object (pair key: (_) value: [(call_expression) (identifier) (member_expression)]) @def))))
(program (export_statement declaration: (lexical_declaration (variable_declarator
  value: (object (pair key: (_) value: [(call_expression) (identifier) (member_expression)]) @def)))))

;; section: refs
(import_statement source: (_) @isrc) @import
(export_statement source: (_) @esrc) @reexport
(export_statement (export_clause (export_specifier name: (_) @exported)))
(export_statement value: (identifier) @exported)
(export_statement !source (export_clause) @lclause) @lexport
(program (export_statement declaration: (lexical_declaration
  (variable_declarator name: (identifier) @aname value: (identifier) @avalue))))
(call_expression function: [
  (identifier) @cname
  (member_expression object: (_) @crecv property: (_) @cname)
  (import) @dynimport]) @call
(new_expression constructor: [
  (identifier) @cname
  (member_expression object: (_) @crecv property: (_) @cname)]) @new

;; section: ts-refs
(import_statement (import_require_clause (identifier) @rname source: (_) @rsrc))
(type_identifier) @tref
(type_parameter name: (type_identifier) @tparam)
[(class_declaration name: (_) @tdecl) (abstract_class_declaration name: (_) @tdecl)
 (interface_declaration name: (_) @tdecl) (type_alias_declaration name: (_) @tdecl)]
(nested_type_identifier module: (_) @tmodule name: (type_identifier) @tnested)
(variable_declarator name: (identifier) @lvname type: (type_annotation) @lvtype)
(variable_declarator name: (identifier) @lvname value: (new_expression constructor: (_) @lvnew))
(variable_declarator name: (identifier) @lvname value: (call_expression function: (_) @lvcall))
; `const s = await this.getStore()`: the call's result once awaited (refs/typescript `_result`)
(variable_declarator name: (identifier) @lvname value: (await_expression (call_expression function: (_) @lvcall)))
(variable_declarator name: (identifier) @lvname value: (member_expression) @lvread)
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @lvname @lvprop)
                     value: [(member_expression) (identifier)] @lvread)
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @lvname @lvprop)
                     value: (call_expression function: [(identifier) (member_expression)] @lvcall))
; a function value's parameter whose type is written (`new Observable((s: Subscriber<T>) => ...)`)
([(arrow_function parameters: (formal_parameters [(required_parameter pattern: (identifier) @lvname
                                                                      type: (type_annotation) @lvtype)
                                                  (optional_parameter pattern: (identifier) @lvname
                                                                      type: (type_annotation) @lvtype)]))
  (function_expression parameters: (formal_parameters [(required_parameter pattern: (identifier) @lvname
                                                                           type: (type_annotation) @lvtype)
                                                       (optional_parameter pattern: (identifier) @lvname
                                                                           type: (type_annotation) @lvtype)]))])
(call_expression function: (_) @cbfn arguments: (arguments [(arrow_function) (function_expression)] @cbarrow))
(new_expression constructor: (_) @cbnew arguments: (arguments [(arrow_function) (function_expression)] @cbarrow))

;; section: jsx-refs
; A JSX element whose tag is a component (`<Button/>`, `<ui.Card>`) uses it like a call.
[(jsx_opening_element name: [(identifier) @jsxname
                             (member_expression object: (_) @crecv property: (_) @jsxname)])
 (jsx_self_closing_element name: [(identifier) @jsxname
                                  (member_expression object: (_) @crecv property: (_) @jsxname)])]
; the closing tag names the component again: no second use (its names are skipped as declared ones are)
(jsx_closing_element name: (identifier) @jsxend)
(jsx_closing_element name: (member_expression object: (identifier) @jsxend))
(jsx_closing_element name: (member_expression property: (property_identifier) @jsxend))

;; section: value-refs
; Names used as values (callbacks, `Foo.bar`, `x = fn`, `extends Base`, `{ helper }`): every
; identifier, kept only when the file defines or imports it and it is not being declared
; there (vdecl); and `this.member` read without a call (bound methods, getters, fields;
; pwrite: assignments to it).
(identifier) @vref
(shorthand_property_identifier) @vref
(member_expression object: (this) property: (property_identifier) @pref)
(member_expression object: (identifier) @mobj property: (property_identifier) @mref)
(assignment_expression left: (member_expression object: (this) property: (property_identifier) @pwrite))
[(variable_declarator name: (identifier) @vdecl) (generator_function_declaration name: (identifier) @vdecl)
 (arrow_function parameter: (identifier) @vdecl) (function_declaration name: (identifier) @vdecl)
 (function_expression name: (identifier) @vdecl) (catch_clause parameter: (identifier) @vdecl)
 (import_specifier alias: (identifier) @vdecl) (namespace_import (identifier) @vdecl)
 (import_clause (identifier) @vdecl) (for_in_statement left: (identifier) @vdecl)
 (assignment_pattern left: (identifier) @vdecl)]
; where a name declared in a function is seen: its innermost block, function, catch clause or loop
[(statement_block) (arrow_function) (function_expression) (function_declaration) (generator_function_declaration)
 (method_definition) (catch_clause) (for_in_statement) (for_statement)] @lscope

;; section: ts-value-decls
[(import_require_clause (identifier) @vdecl) (enum_declaration name: (identifier) @vdecl)
 (function_signature name: (identifier) @vdecl)
 (internal_module name: (identifier) @vdecl) (required_parameter pattern: (identifier) @vdecl)
 (optional_parameter pattern: (identifier) @vdecl)]
; a function type's parameters (`cb: (r: Reaction) => void`) bind nothing in the function
(function_type) @ftype

;; section: js-value-decls
[(class_declaration name: (identifier) @vdecl) (formal_parameters (identifier) @vdecl)]
