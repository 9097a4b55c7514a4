package main

// The agent CLI rows in the summary and the JSON (agentcli.go measures
// them). Issue 16 sets no goal for them: they are figures, each beside the
// stand-in agent started the same way in the same run.

import (
	"fmt"
	"time"
)

// agentCLILabel is a CLI's name in the summary.
func agentCLILabel(name string) string {
	switch name {
	case "claude":
		return "Claude Code"
	case "codex":
		return "Codex"
	case "gemini":
		return "Gemini CLI"
	}
	return name
}

// rangeOf is a set of times as "median (min–max)".
func rangeOf(ds []time.Duration) string {
	lo, hi := spread(ds)
	return fmt.Sprintf("%s (%s–%s)", fmtDur(median(ds)), fmtDur(lo), fmtDur(hi))
}

// agentCLIRows: for each CLI, Start agent to the model's first tool call
// and to Switchboard's first audited MCP call of the session, both against
// the stand-in agent's first audited MCP call; a CLI not measured is a
// printed row saying why, and no JSON.
func (r *report) agentCLIRows() []jsonRow {
	a := r.agentCLI
	if a == nil {
		return nil
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	const prefix = "agent_cli_first_tool_call/"
	baseName := prefix + agentBaseline + "/audited"
	baseLabel := "stand-in agent, first MCP call"
	var out []jsonRow
	base := a.baseline.audited
	if len(base) == 0 {
		// Without the baseline the CLIs' rows stand alone.
		baseName = ""
	}
	vs := func(name string, ours []time.Duration, label string) jsonRow {
		row := newRow(name, "ms", ms(median(ours)), false, baseName, ms(median(base)))
		bl := baseLabel
		if baseName == "" {
			bl = ""
		}
		row = row.labelled(groupAgentCLI, label, bl)
		row.display = rangeOf(ours)
		if baseName != "" {
			row.baseDisplay = rangeOf(base)
		}
		return row
	}
	for _, c := range a.clis {
		who := agentCLILabel(c.name)
		if c.skipped != "" || len(c.modelCall) == 0 {
			why := c.skipped
			if why == "" {
				why = "not measured"
			}
			out = append(out, jsonRow{Name: prefix + c.name + "/model", printOnly: true, display: why}.
				labelled(groupAgentCLI, fmt.Sprintf("Start agent to first tool call, %s on the stand-in model", who), ""))
			continue
		}
		out = append(out,
			vs(prefix+c.name+"/model", c.modelCall, fmt.Sprintf("Start agent to first tool call, %s on the stand-in model (%d starts)", who, len(c.modelCall))),
			vs(prefix+c.name+"/audited", c.audited, fmt.Sprintf("the same, to Switchboard's first audited MCP call of the session, %s", who)))
	}
	if len(base) > 0 {
		row := newRow(baseName, "ms", ms(median(base)), false, "", 0).
			labelled(groupAgentCLI, fmt.Sprintf("Start agent to first MCP call, the stand-in agent (%d starts)", len(base)), "")
		row.display = rangeOf(base)
		out = append(out, row)
	}
	return out
}
