package mcphttp

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-dev/switchboard/mcpserver"
)

// The one prompt, for clients that let a person pick a server's prompt to
// start an agent with: the canonical workflow.
const (
	promptName   = "switchboard_workflow"
	promptMethod = string(mcpserver.MethodPromptWorkflow)
)

func addPrompts(server *mcp.Server, reg *mcpserver.Registry) {
	if _, ok := reg.MethodForTool(promptMethod); !ok {
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
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: res.Value.(mcpserver.PromptText).Text}}},
		}, nil
	})
}
