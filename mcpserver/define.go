package mcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Define builds a Method from a typed handler. The input schema is derived
// from In and the arguments are decoded into it (unknown fields refused); the
// output schema is derived from Out. The schema is never written by hand, so
// it cannot drift from what the handler reads. access says, once, what the
// method needs and on which object; the registry checks it before fn runs.
func Define[In, Out any](name Name[In, Out], access Access, flags Flags, description string, fn func(*Call, In) (Out, error)) Method {
	return Method{
		Name:         string(name),
		Access:       access,
		Flags:        flags,
		Description:  description,
		InputSchema:  schemaFor[In](string(name), "input"),
		OutputSchema: schemaFor[Out](string(name), "output"),
		Handler: func(c *Call) (any, error) {
			// A Prepare that decoded the same arguments hands them on:
			// they are decoded once per call, not once per run of it.
			if in, ok := c.decoded.(*In); ok {
				return fn(c, *in)
			}
			var in In
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			return fn(c, in)
		},
	}
}

// schemaFor derives a JSON schema, panicking at start-up on a type that has
// none: a broken method must not wait for its first call to show.
func schemaFor[T any](method, which string) json.RawMessage {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: %s %s schema: %v", method, which, err))
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: %s %s schema: %v", method, which, err))
	}
	return b
}

// NoArgs is the input of a method that takes no arguments.
type NoArgs struct{}

// RepoScope is the input of a method whose only argument is the optional
// repository it is scoped to.
type RepoScope struct {
	RepositoryID string `json:"repository_id,omitempty" jsonschema:"scope the call to one repository"`
}
