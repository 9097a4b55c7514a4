package mcpserver

import (
	"encoding/json"

	"github.com/switchboard-dev/switchboard/store"
)

// ContractMethod is one method as the contract file lists it.
type ContractMethod struct {
	Method       string           `json:"method"`
	Tool         string           `json:"tool"`
	Capability   store.Capability `json:"capability"`
	Object       string           `json:"object"`
	Hidden       bool             `json:"hidden"`
	Internal     bool             `json:"internal"`
	Deprecated   bool             `json:"deprecated"`
	ReadOnly     bool             `json:"read_only"`
	Description  string           `json:"description"`
	InputSchema  json.RawMessage  `json:"input_schema"`
	OutputSchema json.RawMessage  `json:"output_schema,omitempty"`
}

// Contract lists every method with both names, its capability and object, flags and
// schemas. mcpserver/contract.json is this, checked in and compared by a
// test, so a change to the agent-facing surface shows in review.
func (r *Registry) Contract() []ContractMethod {
	out := make([]ContractMethod, 0, len(r.order))
	for _, m := range r.Methods() {
		out = append(out, ContractMethod{
			Method:       m.Name,
			Tool:         ToolName(m.Name),
			Capability:   m.Capability,
			Object:       m.Object.String(),
			Hidden:       m.Flags&Hidden != 0,
			Internal:     m.Flags&Internal != 0,
			Deprecated:   m.Flags&Deprecated != 0,
			ReadOnly:     m.Flags&ReadOnly != 0,
			Description:  m.Description,
			InputSchema:  m.InputSchema,
			OutputSchema: m.OutputSchema,
		})
	}
	return out
}
