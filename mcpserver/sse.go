package mcpserver

import "net/http"

// sseSessions are the open legacy HTTP+SSE streams.
type sseSessions struct{}

func newSSESessions() *sseSessions { return &sseSessions{} }

// serveSSEStream opens a legacy (2024-11-05) HTTP+SSE stream.
func (h *HTTPHandler) serveSSEStream(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", "POST")
	http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
}

// serveSSEMessage takes a client message for an open SSE stream.
func (h *HTTPHandler) serveSSEMessage(w http.ResponseWriter, r *http.Request) {
	http.NotFound(w, r)
}
