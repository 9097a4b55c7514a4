package standinmodel

import "net/http"

// anthropicRoutes serves the anthropic dialect. TODO(helper): not written yet.
func (s *Server) anthropicRoutes(mux *http.ServeMux) {}
