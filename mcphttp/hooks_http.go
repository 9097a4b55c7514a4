package mcphttp

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/switchboard-dev/switchboard/mcpserver"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// Claude Code's HTTP hooks (supervisor/hooks.go) POST the hook's input
// JSON to ClaudeHookPath+event with the session's token as bearer token.
// Each becomes one session.signal call over TransportHook, checked and
// audited like any other; the answer is JSON (Claude Code insists), empty
// on success: the hook decides nothing, it only tells.

// maxHookBody bounds what is read of a hook's body. A Notification's is
// a few hundred bytes; a PostToolUse hook carries the tool's whole output,
// which is not needed (the event is in the path) and is left unread.
const maxHookBody = 64 << 10

// claudeHookInput is what is read of a hook's input.
type claudeHookInput struct {
	Event            string `json:"hook_event_name"`
	Title            string `json:"title"`
	Message          string `json:"message"`
	NotificationType string `json:"notification_type"`
}

func (h *HTTPHandler) serveClaudeHook(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeHookError(w, http.StatusMethodNotAllowed, mcpserver.CodeInvalidRequest, "hooks are POSTed")
		return
	}
	event := strings.TrimPrefix(r.URL.Path, supervisor.ClaudeHookPath)
	p, ok := h.authenticate(w, r)
	if !ok {
		return
	}
	if p.SessionID == "" {
		// Only a supervised session's own token signals its state: the
		// client token, an operator's, speaks for no session.
		writeHookError(w, http.StatusForbidden, store.CodeCapabilityScopeMismatch, "hooks take the session's own token")
		return
	}
	var in claudeHookInput
	if event == "Notification" {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxHookBody+1))
		switch {
		case err != nil:
			writeHookError(w, http.StatusBadRequest, mcpserver.CodeInvalidRequest, "reading the hook's input failed")
			return
		case len(body) > maxHookBody:
			writeHookError(w, http.StatusRequestEntityTooLarge, mcpserver.CodePayloadTooLarge, "a Notification hook's input is at most 64 KiB")
			return
		}
		if err := json.Unmarshal(body, &in); err != nil {
			writeHookError(w, http.StatusBadRequest, mcpserver.CodeParseError, "the hook's input is not JSON")
			return
		}
		if !claudeWaits(in.NotificationType) {
			// Not a wait: a login that worked, a finished subagent, a
			// quota note. Nothing changes.
			writeHookOK(w)
			return
		}
	}
	args := mcpserver.SignalArgs{Event: event, Title: mcpserver.Clip(in.Title, mcpserver.MaxSignalText), Text: mcpserver.Clip(in.Message, mcpserver.MaxSignalText)}
	_, err := mcpserver.Invoke(r.Context(), h.reg, p, mcpserver.TransportHook, mcpserver.MethodSessionSignal, args)
	var d *store.Denial
	switch {
	case errors.As(err, &d):
		status := httpStatus(d.Code)
		if strings.HasPrefix(string(d.Code), "capability_") {
			status = http.StatusForbidden
		}
		writeHookError(w, status, d.Code, d.Reason)
	case err != nil:
		h.log.Error("hook", "event", mcpserver.Clip(event, 40), "err", err)
		writeHookError(w, http.StatusInternalServerError, store.CodeInternal, "the hook could not be recorded")
	default:
		writeHookOK(w)
	}
}

// claudeWaits reports whether a Notification of this type (Claude Code
// 2.1.332's notification_type) means Claude Code waits for the person. A
// Notification without a type is taken at its word: the hook's meaning is
// "needs your attention".
func claudeWaits(notificationType string) bool {
	switch notificationType {
	case "", "permission_prompt", "idle_prompt", "elicitation_dialog", "elicitation_url_dialog",
		"agent_needs_input", "worker_permission_prompt":
		return true
	}
	return false
}

func writeHookOK(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte("{}\n"))
}

// writeHookError answers a refused hook: Claude Code logs it and goes on.
func writeHookError(w http.ResponseWriter, status int, code store.Code, reason string) {
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"code": code, "message": reason}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(body)
}
