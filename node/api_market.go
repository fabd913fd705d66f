package node

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
)

// Control API routes of the wallet, escrow, hires and jobs.

func (a *apiServer) registerMarket(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/wallet", a.handleBalance)
	mux.HandleFunc("POST /v1/wallet/deposit", a.handleDeposit)
	mux.HandleFunc("POST /v1/wallet/withdraw", a.handleWithdraw)
	mux.HandleFunc("GET /v1/wallet/address", a.handleWalletAddress)
	mux.HandleFunc("GET /v1/wallet/spent", a.handleSpent)
	mux.HandleFunc("GET /v1/wallet/history", a.handleHistory)
	mux.HandleFunc("GET /v1/escrow", a.handleEscrowList)
	mux.HandleFunc("GET /v1/escrow/{id}", a.handleEscrowGet)
	mux.HandleFunc("POST /v1/escrow/{id}/refund", a.handleEscrowRefund)
	mux.HandleFunc("GET /v1/escrow/{id}/evidence", a.handleEscrowEvidence)
	mux.HandleFunc("POST /v1/hire", a.handleHire)
	mux.HandleFunc("GET /v1/jobs", a.handleJobs)
	mux.HandleFunc("GET /v1/jobs/{id}", a.handleJob)
	mux.HandleFunc("POST /v1/jobs/{id}/rate", a.handleRate)
	mux.HandleFunc("GET /v1/jobs/{id}/events", a.handleJobEvents)
	mux.HandleFunc("POST /v1/jobs/{id}/cancel", a.handleJobCancel)
}

func (a *apiServer) handleBalance(w http.ResponseWriter, r *http.Request) {
	b, err := Wallet(r.Context(), a.n.Escrow, a.n.Settler)
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	apiJSON(w, b)
}

func (a *apiServer) handleDeposit(w http.ResponseWriter, r *http.Request) {
	var req controlapi.DepositRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "decode deposit: "+err.Error())
		return
	}
	if a.n.Settler != nil {
		amount, err := escrow.ParseAmount(req.Amount)
		if err != nil || amount <= 0 {
			apiError(w, http.StatusBadRequest, fmt.Sprintf("amount %q: want a positive decimal such as 10 or 0.5", req.Amount))
			return
		}
		b, err := DepositEVM(r.Context(), a.n.Escrow, a.n.Settler, amount)
		if err != nil {
			apiError(w, walletStatus(err), err.Error())
			return
		}
		apiJSON(w, b)
		return
	}
	b, err := Deposit(r.Context(), a.n.Escrow, a.n.Config.Network, req)
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, b)
}

func (a *apiServer) handleSpent(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	info := controlapi.SpentInfo{Scope: q.Get("scope")}
	if s := q.Get("since"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			apiError(w, http.StatusBadRequest, fmt.Sprintf("since %q: want an RFC 3339 time", s))
			return
		}
		info.Since = t
	}
	spent, err := a.n.Escrow.Spent(r.Context(), info.Scope, info.Since)
	if err != nil {
		apiFail(w, err)
		return
	}
	info.Spent = escrow.FormatAmount(spent)
	apiJSON(w, info)
}

// handleEscrowList answers one page: ?role=&state=&limit=&cursor=.
func (a *apiServer) handleEscrowList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := escrow.Filter{Role: escrow.Role(q.Get("role")), State: escrow.State(q.Get("state"))}
	if f.Role != "" && f.Role != escrow.RoleBuyer && f.Role != escrow.RoleSeller {
		apiError(w, http.StatusBadRequest, fmt.Sprintf("role %q: want buyer or seller", f.Role))
		return
	}
	limit, after, err := controlapi.ListQuery(q)
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	if after != nil {
		f.After = &escrow.Position{CreatedAt: after.CreatedAt, JobID: after.JobID, Role: escrow.Role(after.Role)}
	}
	f.Limit = limit + 1 // one more says whether there is a next page
	recs, err := a.n.Escrow.List(r.Context(), f)
	if err != nil {
		apiFail(w, err)
		return
	}
	n, more := controlapi.PageCut(recs, limit, controlapi.MaxListBytes)
	out := controlapi.EscrowsInfo{Escrows: append([]escrow.Record{}, recs[:n]...)}
	if more {
		out.NextCursor = controlapi.EscrowCursor(recs[n-1])
	}
	apiJSON(w, out)
}

func (a *apiServer) handleEscrowEvidence(w http.ResponseWriter, r *http.Request) {
	rc, err := a.n.Escrow.Evidence(r.Context(), r.PathValue("id"))
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, rc)
}

func (a *apiServer) handleEscrowGet(w http.ResponseWriter, r *http.Request) {
	rec, err := a.n.Escrow.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, rec)
}

func (a *apiServer) handleEscrowRefund(w http.ResponseWriter, r *http.Request) {
	var req controlapi.RefundRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Reason == "" {
		apiError(w, http.StatusBadRequest, "a refund needs a reason")
		return
	}
	rec, err := a.n.Market.RefundDelivered(r.Context(), r.PathValue("id"), req.Reason)
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, rec)
}

// handleJobs answers one page of job summaries: ?role=&limit=&cursor=.
func (a *apiServer) handleJobs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	role := q.Get("role")
	if role != "" && role != market.RoleBuyer && role != market.RoleSeller {
		apiError(w, http.StatusBadRequest, fmt.Sprintf("role %q: want buyer or seller", role))
		return
	}
	limit, after, err := controlapi.ListQuery(q)
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	mq := market.JobQuery{Role: role, Limit: limit + 1}
	if after != nil {
		mq.After = &market.JobPosition{CreatedAt: after.CreatedAt, Role: after.Role, JobID: after.JobID}
	}
	jobs, err := a.n.Market.JobsPage(r.Context(), mq)
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	n, more := controlapi.PageCut(jobs, limit, controlapi.MaxListBytes)
	out := controlapi.JobsInfo{Jobs: append([]market.JobRecord{}, jobs[:n]...)}
	if more {
		out.NextCursor = controlapi.JobCursor(jobs[n-1])
	}
	apiJSON(w, out)
}

func (a *apiServer) handleJob(w http.ResponseWriter, r *http.Request) {
	job, err := a.n.Market.Job(r.Context(), r.PathValue("id"))
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, job)
}

func (a *apiServer) handleRate(w http.ResponseWriter, r *http.Request) {
	var req controlapi.RateRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "decode rating: "+err.Error())
		return
	}
	job, err := a.n.Market.Rate(r.Context(), r.PathValue("id"), req.Rating)
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, job)
}

// handleHire runs a hire and streams its events as NDJSON, ending with one
// "done" event that carries the result.
func (a *apiServer) handleHire(w http.ResponseWriter, r *http.Request) {
	var req controlapi.HireRequest
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
		apiJSON(w, a.n.Detach(mreq))
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
	done := make(chan controlapi.HireInfo, 1)
	go func() { done <- a.n.runHire(r.Context(), mreq, progress) }()
	for {
		select {
		case ev := <-events:
			_ = enc.Encode(controlapi.HireEvent{Event: ev})
			_ = rc.Flush()
		case res := <-done:
			for len(events) > 0 {
				_ = enc.Encode(controlapi.HireEvent{Event: <-events})
			}
			_ = enc.Encode(controlapi.HireEvent{Event: market.Event{Type: controlapi.EventDone, JobID: res.JobID}, Result: &res})
			_ = rc.Flush()
			return
		}
	}
}

// handleJobEvents streams a bought job's events as NDJSON: the history so
// far, then, while the hire runs in this daemon, each new event; the last
// line is a "done" event with the result.
func (a *apiServer) handleJobEvents(w http.ResponseWriter, r *http.Request) {
	jobID := r.PathValue("id")
	var (
		past []controlapi.HireEvent
		live <-chan controlapi.HireEvent
		res  *controlapi.HireInfo
	)
	if l := a.n.hires.get(jobID); l != nil {
		past, live, res = l.watch()
	} else {
		rec, err := a.n.Market.Job(r.Context(), jobID)
		if err != nil {
			apiFail(w, err)
			return
		}
		for _, ev := range rec.Events {
			past = append(past, controlapi.HireEvent{Event: market.Event{Type: ev.Type, JobID: jobID, Message: ev.Message, ElapsedMS: ev.ElapsedMS}})
		}
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
			if ev.Type == controlapi.EventDone {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
	if res == nil {
		info, err := a.n.jobResult(r.Context(), jobID)
		if err != nil {
			return
		}
		res = &info
	}
	_ = enc.Encode(controlapi.HireEvent{Event: market.Event{Type: controlapi.EventDone, JobID: jobID}, Result: res})
}

// handleJobCancel cancels a bought job not yet delivered and refunds it.
func (a *apiServer) handleJobCancel(w http.ResponseWriter, r *http.Request) {
	rec, err := a.n.CancelJob(r.Context(), r.PathValue("id"))
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, rec)
}
