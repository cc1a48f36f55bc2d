"""The part of GitHub's GraphQL schema the sandbox serves, in SDL, run by graphql-core.

``run(document, variables, operation_name, root, context)`` reads, validates and executes one
request and returns GitHub's answer as a dict: ``{"data": …}`` with, beside it, the errors of
fields that failed (``{"type": "NOT_FOUND", "path", "locations", "message"}``: a resolver raises
``FieldError``), or ``{"errors": […]}`` alone for a request that cannot run, in GitHub's words —
``Parse error on "}" (RCURLY) at [1, 20]``, ``Field 'x' doesn't exist on type 'Y'`` (with its
``path`` and ``extensions``), ``Variable $id of type ID! was provided invalid value``.

The values the resolvers get and return are the objects of ``graphql_objects``: graphql-core's
default resolver reads an attribute named like the field, or calls a method so named with the
field's arguments. Interfaces and unions resolve to the class's ``TYPENAME``. graphql-core is
imported here only: the app imports this module on the first GraphQL request.
"""

from __future__ import annotations

import re
from typing import Any

from graphql import (
    ExecutionResult,
    FieldsOnCorrectTypeRule,
    GraphQLError,
    GraphQLInterfaceType,
    GraphQLSchema,
    GraphQLSyntaxError,
    GraphQLUnionType,
    OperationDefinitionNode,
    build_schema,
    execute,
    parse,
    print_ast,
    specified_rules,
    validate,
)
from graphql.language import DocumentNode, FieldNode
from graphql.validation import ValidationRule

__all__ = ["SCHEMA", "SDL", "FieldError", "mutation_fields", "parse_request", "run"]


class FieldError(Exception):
    """An error of one field (``type``: NOT_FOUND, FORBIDDEN, UNPROCESSABLE, …): the field
    becomes null and the error is listed beside the data."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


_PAGE = "first: Int, after: String, last: Int, before: String"

SDL = f"""
scalar DateTime
scalar URI
scalar HTML

enum ReactionContent {{ THUMBS_UP THUMBS_DOWN LAUGH HOORAY CONFUSED HEART ROCKET EYES }}
enum OrderDirection {{ ASC DESC }}
enum DiscussionOrderField {{ CREATED_AT UPDATED_AT }}
enum CommentAuthorAssociation {{
  COLLABORATOR CONTRIBUTOR FIRST_TIMER FIRST_TIME_CONTRIBUTOR MANNEQUIN MEMBER NONE OWNER
}}
input DiscussionOrder {{ field: DiscussionOrderField! direction: OrderDirection! }}

interface Node {{ id: ID! }}
interface Actor {{ login: String! avatarUrl(size: Int): URI! url: URI! resourcePath: URI! }}
interface RepositoryOwner {{ id: ID! login: String! avatarUrl(size: Int): URI! url: URI! }}
interface Reactable {{
  id: ID!
  databaseId: Int
  reactionGroups: [ReactionGroup!]
  reactions({_PAGE}, content: ReactionContent): ReactionConnection!
  viewerCanReact: Boolean!
}}
union Reactor = User

type PageInfo {{
  hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String endCursor: String
}}

type User implements Node & Actor & RepositoryOwner {{
  id: ID! databaseId: Int login: String! name: String avatarUrl(size: Int): URI! url: URI!
  resourcePath: URI!
}}

type RateLimit {{ cost: Int! limit: Int! nodeCount: Int! remaining: Int! resetAt: DateTime! used: Int! }}

type Repository implements Node {{
  id: ID! databaseId: Int name: String! nameWithOwner: String! owner: RepositoryOwner! url: URI!
  hasDiscussionsEnabled: Boolean!
  discussion(number: Int!): Discussion
  discussions({_PAGE}, categoryId: ID, answered: Boolean, orderBy: DiscussionOrder):
    DiscussionConnection!
  discussionCategories({_PAGE}, filterByAssignable: Boolean): DiscussionCategoryConnection!
  discussionCategory(slug: String!): DiscussionCategory
}}

type DiscussionCategory implements Node {{
  id: ID! name: String! slug: String! description: String emoji: String! emojiHTML: HTML!
  isAnswerable: Boolean! createdAt: DateTime! updatedAt: DateTime! repository: Repository!
}}

type Discussion implements Node & Reactable {{
  id: ID! databaseId: Int number: Int! title: String! body: String! bodyText: String!
  url: URI! resourcePath: URI! createdAt: DateTime! updatedAt: DateTime!
  publishedAt: DateTime lastEditedAt: DateTime
  author: Actor authorAssociation: CommentAuthorAssociation!
  category: DiscussionCategory! repository: Repository!
  upvoteCount: Int! viewerHasUpvoted: Boolean! viewerCanUpvote: Boolean! viewerDidAuthor: Boolean!
  locked: Boolean! closed: Boolean! closedAt: DateTime isAnswered: Boolean
  answer: DiscussionComment
  comments({_PAGE}): DiscussionCommentConnection!
  reactionGroups: [ReactionGroup!]
  reactions({_PAGE}, content: ReactionContent): ReactionConnection!
  viewerCanReact: Boolean!
}}

type DiscussionComment implements Node & Reactable {{
  id: ID! databaseId: Int body: String! bodyText: String! url: URI!
  createdAt: DateTime! updatedAt: DateTime! publishedAt: DateTime lastEditedAt: DateTime
  author: Actor authorAssociation: CommentAuthorAssociation!
  discussion: Discussion replyTo: DiscussionComment
  replies({_PAGE}): DiscussionCommentConnection!
  upvoteCount: Int! isAnswer: Boolean! isMinimized: Boolean! deletedAt: DateTime
  viewerDidAuthor: Boolean!
  reactionGroups: [ReactionGroup!]
  reactions({_PAGE}, content: ReactionContent): ReactionConnection!
  viewerCanReact: Boolean!
}}

type ReactionGroup {{
  content: ReactionContent! createdAt: DateTime subject: Reactable! viewerHasReacted: Boolean!
  users({_PAGE}): ReactingUserConnection!
  reactors({_PAGE}): ReactorConnection!
}}
type ReactingUserConnection {{ totalCount: Int! nodes: [User] pageInfo: PageInfo! }}
type ReactorConnection {{ totalCount: Int! nodes: [Reactor] pageInfo: PageInfo! }}
type Reaction implements Node {{
  id: ID! databaseId: Int content: ReactionContent! createdAt: DateTime user: User
  reactable: Reactable!
}}
type ReactionEdge {{ cursor: String! node: Reaction }}
type ReactionConnection {{
  totalCount: Int! nodes: [Reaction] edges: [ReactionEdge] pageInfo: PageInfo!
  viewerHasReacted: Boolean!
}}

type DiscussionEdge {{ cursor: String! node: Discussion }}
type DiscussionConnection {{
  totalCount: Int! nodes: [Discussion] edges: [DiscussionEdge] pageInfo: PageInfo!
}}
type DiscussionCommentEdge {{ cursor: String! node: DiscussionComment }}
type DiscussionCommentConnection {{
  totalCount: Int! nodes: [DiscussionComment] edges: [DiscussionCommentEdge] pageInfo: PageInfo!
}}
type DiscussionCategoryEdge {{ cursor: String! node: DiscussionCategory }}
type DiscussionCategoryConnection {{
  totalCount: Int! nodes: [DiscussionCategory] edges: [DiscussionCategoryEdge] pageInfo: PageInfo!
}}

type Query {{
  viewer: User!
  repository(owner: String!, name: String!, followRenames: Boolean = true): Repository
  node(id: ID!): Node
  nodes(ids: [ID!]!): [Node]!
  rateLimit(dryRun: Boolean = false): RateLimit
}}

input CreateDiscussionInput {{
  repositoryId: ID! categoryId: ID! title: String! body: String! clientMutationId: String
}}
type CreateDiscussionPayload {{ clientMutationId: String discussion: Discussion }}
input AddDiscussionCommentInput {{
  discussionId: ID! body: String! replyToId: ID clientMutationId: String
}}
type AddDiscussionCommentPayload {{ clientMutationId: String comment: DiscussionComment }}
input AddReactionInput {{ subjectId: ID! content: ReactionContent! clientMutationId: String }}
type AddReactionPayload {{
  clientMutationId: String reaction: Reaction subject: Reactable reactionGroups: [ReactionGroup!]
}}
input RemoveReactionInput {{ subjectId: ID! content: ReactionContent! clientMutationId: String }}
type RemoveReactionPayload {{
  clientMutationId: String reaction: Reaction subject: Reactable reactionGroups: [ReactionGroup!]
}}

type Mutation {{
  createDiscussion(input: CreateDiscussionInput!): CreateDiscussionPayload
  addDiscussionComment(input: AddDiscussionCommentInput!): AddDiscussionCommentPayload
  addReaction(input: AddReactionInput!): AddReactionPayload
  removeReaction(input: RemoveReactionInput!): RemoveReactionPayload
}}
"""


def _typename(value: Any, *_: Any) -> str:
    return value.TYPENAME


def _build() -> GraphQLSchema:
    schema = build_schema(SDL)
    for name in ("Node", "Actor", "RepositoryOwner", "Reactable", "Reactor"):
        abstract = schema.type_map[name]
        assert isinstance(abstract, GraphQLInterfaceType | GraphQLUnionType)  # as the SDL says
        abstract.resolve_type = _typename
    return schema


SCHEMA = _build()


# ---------------------------------------------------------------------------------------------
# Errors in GitHub's words


class _GitHubFields(ValidationRule):
    """An unknown field, as GitHub reports it (``undefinedField``, the path from the operation)."""

    def enter_field(self, node: FieldNode, _key, _parent, _path, ancestors) -> None:
        parent = self.context.get_parent_type()
        if parent is None or node.name.value.startswith("__"):
            return
        if node.name.value in getattr(parent, "fields", {}):
            return
        path: list[str] = []
        for ancestor in ancestors:
            if isinstance(ancestor, OperationDefinitionNode):
                label = ancestor.operation.value
                path.append(f"{label} {ancestor.name.value}" if ancestor.name else label)
            elif isinstance(ancestor, FieldNode):
                path.append(ancestor.name.value)
        name = node.name.value
        self.report_error(
            GraphQLError(
                f"Field '{name}' doesn't exist on type '{parent.name}'",
                node,
                extensions={
                    "path": [*path, name],
                    "code": "undefinedField",
                    "typeName": parent.name,
                    "fieldName": name,
                },
            )
        )


_RULES = [r for r in specified_rules if r is not FieldsOnCorrectTypeRule] + [_GitHubFields]

_TOKENS = {
    "<EOF>": ("end of file", "EOF"),
    "'{'": ("{", "LCURLY"),
    "'}'": ("}", "RCURLY"),
    "'('": ("(", "LPAREN"),
    "')'": (")", "RPAREN"),
    "'['": ("[", "LBRACKET"),
    "']'": ("]", "RBRACKET"),
    "':'": (":", "COLON"),
    "'!'": ("!", "BANG"),
    "'$'": ("$", "VAR_SIGN"),
    "'='": ("=", "EQUALS"),
    "'@'": ("@", "DIR_SIGN"),
    "'...'": ("...", "ELLIPSIS"),
    "'|'": ("|", "PIPE"),
    "'&'": ("&", "AMP"),
}
_KINDS = {"Name": "IDENTIFIER", "String": "STRING", "Int": "INT", "Float": "FLOAT"}


def _located(error: GraphQLError) -> list[dict[str, int]]:
    return [{"line": loc.line, "column": loc.column} for loc in error.locations or []]


def _parse_error(error: GraphQLSyntaxError) -> dict[str, Any]:
    """``Parse error on "}" (RCURLY) at [1, 20]``, as GitHub words a syntax error."""
    located = _located(error)
    line, column = (located[0]["line"], located[0]["column"]) if located else (1, 1)
    found = re.search(r"found (.+?)\.?$", error.message)
    shown = None
    if found:
        token = found.group(1)
        if token in _TOKENS:
            shown = _TOKENS[token]
        else:
            kind, _, text = token.partition(" ")
            if kind in _KINDS:
                shown = (text.strip('"'), _KINDS[kind])
    unexpected = re.search(r"Unexpected character: '(.+)'", error.message)
    if unexpected:
        shown = (unexpected.group(1), "UNKNOWN_CHAR")
    if shown is None:
        message = "Parse error: " + error.message.removeprefix("Syntax Error: ")
    else:
        message = f'Parse error on "{shown[0]}" ({shown[1]}) at [{line}, {column}]'
    return {"message": message, "locations": located}


def _request_error(error: GraphQLError, document: DocumentNode | None) -> dict[str, Any]:
    """A validation or variable error as GitHub words it."""
    located = _located(error)
    extensions = dict(error.extensions or {})
    if extensions.get("code") == "undefinedField":
        path = extensions.pop("path")
        return {
            "path": path,
            "extensions": extensions,
            "locations": located,
            "message": error.message,
        }
    variable = _VARIABLE.match(error.message)
    if variable and document is not None:
        kind = _variable_type(document, variable.group(1))
        missing = "was not provided" in error.message or "to be provided" in error.message
        explanation = (
            "Expected value to not be null"
            if missing
            else re.split(r"; |: ", error.message, maxsplit=1)[-1]
        )
        return {
            "extensions": {
                "value": None,
                "problems": [{"path": [], "explanation": explanation}],
            },
            "locations": located,
            "message": f"Variable ${variable.group(1)} of type {kind} was provided invalid value",
        }
    leaf = re.match(
        r"Field '(\w+)' of type '([^']+)' must have a selection of subfields", error.message
    )
    if leaf:
        name, kind = leaf.group(1), leaf.group(2).strip("[]!")
        return {
            "locations": located,
            "message": f"Field must have selections (field '{name}' returns {kind} but has no "
            f"selections. Did you mean '{name} {{ ... }}'?)",
        }
    return {"locations": located, "message": error.message}


#: graphql-core's words for a variable it cannot take (3.2's and 3.3's).
_VARIABLE = re.compile(
    r"Variable '\$(\w+)' (?:of required type|got invalid value|has invalid value)"
)


def _variable_type(document: DocumentNode, name: str) -> str:
    for definition in document.definitions:
        for variable in getattr(definition, "variable_definitions", None) or []:
            if variable.variable.name.value == name:
                return print_ast(variable.type)
    return "?"


def _field_error(error: GraphQLError) -> dict[str, Any]:
    original = error.original_error
    if isinstance(original, FieldError):
        return {
            "type": original.kind,
            "path": list(error.path or []),
            "locations": _located(error),
            "message": original.message,
        }
    return {
        "path": list(error.path or []),
        "locations": _located(error),
        "message": "Something went wrong while executing your query. This may be the result "
        "of a timeout, or it could be a GitHub bug.",
    }


# ---------------------------------------------------------------------------------------------
# Running a request


def parse_request(query: Any) -> tuple[DocumentNode | None, dict[str, Any] | None]:
    """(document, None) or (None, GitHub's answer for a request that cannot be read)."""
    if not isinstance(query, str) or not query.strip():
        return None, {
            "errors": [{"message": "A query attribute must be specified and must be a string."}]
        }
    try:
        return parse(query), None
    except GraphQLSyntaxError as exc:
        return None, {"errors": [_parse_error(exc)]}


def mutation_fields(document: DocumentNode, operation_name: str | None) -> list[str]:
    """The root fields of the mutation the request runs (none for a query)."""
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if operation_name:
        operations = [o for o in operations if o.name and o.name.value == operation_name]
    if len(operations) != 1 or operations[0].operation.value != "mutation":
        return []
    return [
        s.name.value for s in operations[0].selection_set.selections if isinstance(s, FieldNode)
    ]


def run(
    document: DocumentNode,
    variables: Any,
    operation_name: str | None,
    root: Any,
    context: Any,
) -> dict[str, Any]:
    """GitHub's answer to one parsed request (see the module's docstring)."""
    if variables is not None and not isinstance(variables, dict):
        return {"errors": [{"message": "Variables are invalid JSON."}]}
    problems = validate(SCHEMA, document, _RULES)
    if problems:
        return {"errors": [_request_error(p, document) for p in problems]}
    result = execute(
        SCHEMA,
        document,
        root_value=root,
        context_value=context,
        variable_values=variables or {},
        operation_name=operation_name,
    )
    assert isinstance(result, ExecutionResult)  # the resolvers are synchronous
    if result.data is None and result.errors and all(e.path is None for e in result.errors):
        return {"errors": [_request_error(e, document) for e in result.errors]}
    answer: dict[str, Any] = {"data": result.data}
    if result.errors:
        answer["errors"] = [_field_error(e) for e in result.errors]
    return answer
