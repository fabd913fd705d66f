package controlapi

import (
	"net/http"
	"time"
)

// GET /v1/wallet/history?since=RFC3339: what the node spent and earned
// since then, per day (the daemon's local calendar days) and per
// capability ('swarmwage wallet history').

func (s *Server) handleHistory(w http.ResponseWriter, r *http.Request) {
	var since time.Time
	if s := r.URL.Query().Get("since"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			apiError(w, http.StatusBadRequest, "since: want an RFC 3339 time: "+err.Error())
			return
		}
		since = t
	}
	h, err := s.b.History(r.Context(), since, time.Local)
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, h)
}
