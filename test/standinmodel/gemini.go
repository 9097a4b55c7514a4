package standinmodel

import "net/http"

// geminiRoutes serves the gemini dialect. TODO(helper): not written yet.
func (s *Server) geminiRoutes(mux *http.ServeMux) {}
