package standinmodel

import "net/http"

// openaiRoutes serves the openai dialect. TODO(helper): not written yet.
func (s *Server) openaiRoutes(mux *http.ServeMux) {}
