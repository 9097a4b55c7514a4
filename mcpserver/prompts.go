package mcpserver

import (
	"github.com/switchboard-dev/switchboard/store"
)

// The methods of this file, typed with their arguments and results.
const (
	// MethodPromptWorkflow answers MCP's prompts/get of the one prompt the
	// server offers: the canonical workflow, for clients that let a person
	// pick a server's prompt to start an agent with.
	MethodPromptWorkflow Name[NoArgs, PromptText] = "prompt.workflow"
)

// PromptText is the result of prompt.workflow.
type PromptText struct {
	Text string `json:"text"`
}

func (r *Registry) registerPrompts() {
	r.Register(Define(MethodPromptWorkflow, On(Global, store.CapStatusRead), Internal|ReadOnly,
		"prompts/get switchboard_workflow",
		func(c *Call, _ NoArgs) (PromptText, error) { return PromptText{Text: Instructions}, nil }))
}
