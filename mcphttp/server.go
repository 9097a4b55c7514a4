package mcphttp

import (
	"log/slog"
	"net/http"
	"time"
)

// NewServer returns the http.Server the MCP handler is meant to run on: every
// phase of a request bounded, with the write deadline past the longest long
// poll (60 s). SSE streams extend their own deadlines as they write.
func NewServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      90 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
}
