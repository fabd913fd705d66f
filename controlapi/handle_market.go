package controlapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
)

// Control API routes of the wallet, escrow, hires and jobs.

func (s *Server) registerMarket(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/wallet", s.handleBalance)
	mux.HandleFunc("POST /v1/wallet/deposit", s.handleDeposit)
	mux.HandleFunc("POST /v1/wallet/withdraw", s.handleWithdraw)
	mux.HandleFunc("GET /v1/wallet/address", s.handleWalletAddress)
	mux.HandleFunc("GET /v1/wallet/spent", s.handleSpent)
	mux.HandleFunc("GET /v1/wallet/history", s.handleHistory)
	mux.HandleFunc("GET /v1/escrow", s.handleEscrowList)
	mux.HandleFunc("GET /v1/escrow/{id}", s.handleEscrowGet)
	mux.HandleFunc("POST /v1/escrow/{id}/refund", s.handleEscrowRefund)
	mux.HandleFunc("GET /v1/escrow/{id}/evidence", s.handleEscrowEvidence)
	mux.HandleFunc("POST /v1/hire", s.handleHire)
	mux.HandleFunc("GET /v1/jobs", s.handleJobs)
	mux.HandleFunc("GET /v1/jobs/{id}", s.handleJob)
	mux.HandleFunc("POST /v1/jobs/{id}/rate", s.handleRate)
	mux.HandleFunc("GET /v1/jobs/{id}/events", s.handleJobEvents)
	mux.HandleFunc("POST /v1/jobs/{id}/cancel", s.handleJobCancel)
}

func (s *Server) handleBalance(w http.ResponseWriter, r *http.Request) {
	b, err := s.b.Wallet(r.Context())
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	apiJSON(w, b)
}

func (s *Server) handleDeposit(w http.ResponseWriter, r *http.Request) {
	var req DepositRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "decode deposit: "+err.Error())
		return
	}
	if s.b.OnChain() {
		amount, err := escrow.ParseAmount(req.Amount)
		if err != nil || amount <= 0 {
			apiError(w, http.StatusBadRequest, fmt.Sprintf("amount %q: want a positive decimal such as 10 or 0.5", req.Amount))
			return
		}
		b, err := s.b.DepositChain(r.Context(), amount)
		if err != nil {
			apiError(w, walletStatus(err), err.Error())
			return
		}
		apiJSON(w, b)
		return
	}
	b, err := s.b.DepositCredits(r.Context(), req)
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, b)
}

func (s *Server) handleSpent(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	info := SpentInfo{Scope: q.Get("scope")}
	if s := q.Get("since"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			apiError(w, http.StatusBadRequest, fmt.Sprintf("since %q: want an RFC 3339 time", s))
			return
		}
		info.Since = t
	}
	spent, err := s.b.Spent(r.Context(), info.Scope, info.Since)
	if err != nil {
		apiFail(w, err)
		return
	}
	info.Spent = escrow.FormatAmount(spent)
	apiJSON(w, info)
}

// handleEscrowList answers one page: ?role=&state=&limit=&cursor=.
func (s *Server) handleEscrowList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := escrow.Filter{Role: escrow.Role(q.Get("role")), State: escrow.State(q.Get("state"))}
	if f.Role != "" && f.Role != escrow.RoleBuyer && f.Role != escrow.RoleSeller {
		apiError(w, http.StatusBadRequest, fmt.Sprintf("role %q: want buyer or seller", f.Role))
		return
	}
	limit, after, err := ListQuery(q)
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	if after != nil {
		f.After = &escrow.Position{CreatedAt: after.CreatedAt, JobID: after.JobID, Role: escrow.Role(after.Role)}
	}
	f.Limit = limit + 1 // one more says whether there is a next page
	recs, err := s.b.Escrows(r.Context(), f)
	if err != nil {
		apiFail(w, err)
		return
	}
	n, more := PageCut(recs, limit, MaxListBytes)
	out := EscrowsInfo{Escrows: append([]escrow.Record{}, recs[:n]...)}
	if more {
		out.NextCursor = EscrowCursor(recs[n-1])
	}
	apiJSON(w, out)
}

func (s *Server) handleEscrowEvidence(w http.ResponseWriter, r *http.Request) {
	rc, err := s.b.Evidence(r.Context(), r.PathValue("id"))
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, rc)
}

func (s *Server) handleEscrowGet(w http.ResponseWriter, r *http.Request) {
	rec, err := s.b.EscrowRecord(r.Context(), r.PathValue("id"))
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, rec)
}

func (s *Server) handleEscrowRefund(w http.ResponseWriter, r *http.Request) {
	var req RefundRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Reason == "" {
		apiError(w, http.StatusBadRequest, "a refund needs a reason")
		return
	}
	rec, err := s.b.RefundDelivered(r.Context(), r.PathValue("id"), req.Reason)
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, rec)
}

// handleJobs answers one page of job summaries: ?role=&limit=&cursor=.
func (s *Server) handleJobs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	role := q.Get("role")
	if role != "" && role != market.RoleBuyer && role != market.RoleSeller {
		apiError(w, http.StatusBadRequest, fmt.Sprintf("role %q: want buyer or seller", role))
		return
	}
	limit, after, err := ListQuery(q)
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	mq := market.JobQuery{Role: role, Limit: limit + 1}
	if after != nil {
		mq.After = &market.JobPosition{CreatedAt: after.CreatedAt, Role: after.Role, JobID: after.JobID}
	}
	jobs, err := s.b.JobsPage(r.Context(), mq)
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	n, more := PageCut(jobs, limit, MaxListBytes)
	out := JobsInfo{Jobs: append([]market.JobRecord{}, jobs[:n]...)}
	if more {
		out.NextCursor = JobCursor(jobs[n-1])
	}
	apiJSON(w, out)
}

func (s *Server) handleJob(w http.ResponseWriter, r *http.Request) {
	job, err := s.b.Job(r.Context(), r.PathValue("id"))
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, job)
}

func (s *Server) handleRate(w http.ResponseWriter, r *http.Request) {
	var req RateRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "decode rating: "+err.Error())
		return
	}
	job, err := s.b.Rate(r.Context(), r.PathValue("id"), req.Rating)
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, job)
}

// handleHire runs a hire and streams its events as NDJSON, ending with one
// "done" event that carries the result.
func (s *Server) handleHire(w http.ResponseWriter, r *http.Request) {
	var req HireRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "decode hire request: "+err.Error())
		return
	}
	mreq, err := req.Market()
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.Detach {
		apiJSON(w, s.b.Detach(mreq))
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	events := make(chan market.Event, 64)
	progress := func(ev market.Event) {
		select {
		case events <- ev:
		default: // a slow reader loses progress lines, never the result
		}
	}
	done := make(chan HireInfo, 1)
	go func() { done <- s.b.RunHire(r.Context(), mreq, progress) }()
	for {
		select {
		case ev := <-events:
			_ = enc.Encode(HireEvent{Event: ev})
			_ = rc.Flush()
		case res := <-done:
			for len(events) > 0 {
				_ = enc.Encode(HireEvent{Event: <-events})
			}
			_ = enc.Encode(HireEvent{Event: market.Event{Type: EventDone, JobID: res.JobID}, Result: &res})
			_ = rc.Flush()
			return
		}
	}
}

// handleJobEvents streams a bought job's events as NDJSON: the history so
// far, then, while the hire runs in this daemon, each new event; the last
// line is a "done" event with the result.
func (s *Server) handleJobEvents(w http.ResponseWriter, r *http.Request) {
	jobID := r.PathValue("id")
	past, live, res, err := s.b.WatchJob(r.Context(), jobID)
	if err != nil {
		apiFail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, ev := range past {
		_ = enc.Encode(ev)
	}
	_ = rc.Flush()
	for live != nil {
		select {
		case ev, ok := <-live:
			if !ok {
				return
			}
			_ = enc.Encode(ev)
			_ = rc.Flush()
			if ev.Type == EventDone {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
	if res == nil {
		info, err := s.b.JobResult(r.Context(), jobID)
		if err != nil {
			return
		}
		res = &info
	}
	_ = enc.Encode(HireEvent{Event: market.Event{Type: EventDone, JobID: jobID}, Result: res})
}

// handleJobCancel cancels a bought job not yet delivered and refunds it.
func (s *Server) handleJobCancel(w http.ResponseWriter, r *http.Request) {
	rec, err := s.b.CancelJob(r.Context(), r.PathValue("id"))
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, rec)
}

func (s *Server) handleWalletAddress(w http.ResponseWriter, r *http.Request) {
	addr, err := s.b.Address()
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	apiJSON(w, AddressInfo{Address: addr})
}

func (s *Server) handleWithdraw(w http.ResponseWriter, r *http.Request) {
	info, err := s.b.Withdraw(r.Context())
	if err != nil {
		apiError(w, walletStatus(err), err.Error())
		return
	}
	apiJSON(w, info)
}
