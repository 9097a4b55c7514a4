package mcpserver

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/store"
)

// The methods of this file, typed with their arguments and results.
const (
	MethodPromptWorkflow Name[NoArgs, PromptText] = promptMethod
)

// The one prompt: the canonical workflow, for clients that let a person pick
// a server's prompt to start an agent with.
const (
	promptName   = "switchboard_workflow"
	promptMethod = "prompt.workflow"
)

// PromptText is the result of prompt.workflow.
type PromptText struct {
	Text string `json:"text"`
}

func (r *Registry) registerPrompts() {
	r.Register(Define(MethodPromptWorkflow, On(Global, store.CapStatusRead), Internal|ReadOnly,
		"prompts/get "+promptName,
		func(c *Call, _ NoArgs) (PromptText, error) { return PromptText{Text: Instructions}, nil }))
}

func addPrompts(server *mcp.Server, reg *Registry) {
	if _, ok := reg.methods[promptMethod]; !ok {
		return
	}
	server.AddPrompt(&mcp.Prompt{
		Name:        promptName,
		Title:       "Work with Switchboard",
		Description: "The workflow an agent follows: discover tools, claim a packet under a lease, publish, complete, report.",
	}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		c, ok := callerOf(req)
		if !ok {
			return nil, errors.New("no caller on this request")
		}
		res := reg.Invoke(ctx, c.principal, c.transport, promptMethod, nil)
		if res.Err != nil {
			c.storeUnavailable(&res) // answered 503 when so
			return nil, rpcError(jsonrpcCode(res.Code()), &res)
		}
		return &mcp.GetPromptResult{
			Description: "Switchboard's agent workflow",
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: res.Value.(PromptText).Text}}},
		}, nil
	})
}
