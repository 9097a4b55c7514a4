package mcpserver

import "github.com/switchboard-dev/switchboard/store"

// Transport denials (SPEC §3): a request refused in front of the registry,
// before it is a call (its origin, its host, its bytes). The transports
// (mcphttp, the control socket) give them; the registry lists them in its
// policies, so an agent knows every code it may meet.
const (
	CodeOriginForbidden store.Code = "origin_forbidden"
	CodeHostForbidden   store.Code = "host_forbidden"
	CodeParseError      store.Code = "parse_error"
	CodeInvalidRequest  store.Code = "invalid_request"
	CodePayloadTooLarge store.Code = "payload_too_large"
)
