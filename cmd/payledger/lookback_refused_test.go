package main

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A restarted serve looks back for the deposits listed just before it stopped (their blocks may
// have been read without them). While the node refuses that look-back's eth_getLogs, new blocks
// are still read and a payment in them is credited, but detection is not making the progress it
// owes: after the stall window /healthz answers degraded naming "deposit detection", and the
// log says why (the node's refusal). Once the node answers, detection recovers. (issue 38; the
// in-process test of the same rule is TestDetectionProgress.)
func TestServeLookBackRefusedShowsOnHealthz(t *testing.T) {
	d := newDepositServe(t)
	d.stop() // the receipt was listed within a minute of the detector's last watch list
	node := newRefusingNode(t, d.vars["ETH_RPC_URL"])
	vars := maps.Clone(d.serveVars)
	vars["ETH_RPC_URL"] = node.URL
	base, out, stop := startServeStoppable(t, vars)
	t.Cleanup(stop)
	c := &e2eClient{t: t, base: base}

	sendDeposit(t, d.vars, d.accounts[0], d.deposit)
	waitDepositPaid(t, c, d.apiKey, d.id, d.deposit, d.accounts[0], out.String)
	if node.refused.Load() == 0 {
		t.Fatalf("the restarted serve never looked back for the deposit listed before it stopped\n%s", out.String())
	}

	stuck := func() bool {
		var h struct {
			Status string   `json:"status"`
			Stuck  []string `json:"stuck"`
		}
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
			t.Fatal(err)
		}
		return h.Status == "degraded" && slices.Contains(h.Stuck, "deposit detection")
	}
	waitUntil(t, "deposit detection shown stuck", 90*time.Second, stuck)
	// /healthz names the worker; why is in the log (it may hold addresses a public route must not show).
	waitUntil(t, "the stuck line with the node's refusal", 10*time.Second, func() bool {
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.Contains(line, `"message":"background worker stuck"`) && strings.Contains(line, `"worker":"deposit detection"`) &&
				strings.Contains(line, refusal) {
				return true
			}
		}
		return false
	})

	node.refusing.Store(false)
	waitUntil(t, "deposit detection recovered", 60*time.Second, func() bool { return !stuck() })
	waitUntil(t, "the recovery logged", 10*time.Second, func() bool {
		return strings.Contains(out.String(), `"message":"background worker recovered"`)
	})
}

// refusal is the error refusingNode answers a look-back with (a provider's range limit).
const refusal = "query exceeds max results 10000"

// refusingNode is a JSON-RPC proxy to a node that, while refusing, answers every eth_getLogs that
// names recipients (the deposit look-back's; the detector's own block reads name none) with an
// error; refused counts them.
type refusingNode struct {
	*httptest.Server
	refusing atomic.Bool
	refused  atomic.Int64
}

func newRefusingNode(t *testing.T, target string) *refusingNode {
	t.Helper()
	if !strings.HasPrefix(target, "http") {
		t.Fatalf("ETH_RPC_URL %q: the proxy speaks HTTP", target)
	}
	n := &refusingNode{}
	n.refusing.Store(true)
	n.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if n.refusing.Load() && n.refuse(body) {
			n.refused.Add(1)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(refusalFor(body))
			return
		}
		resp, err := http.Post(target, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(n.Close)
	return n
}

// rpcCall is the part of a JSON-RPC request the proxy reads.
type rpcCall struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params []struct {
		Topics []json.RawMessage `json:"topics"`
	} `json:"params"`
}

// refuse says whether body is one eth_getLogs call that names recipients (a batch is forwarded:
// the look-back's eth_getLogs is a call of its own).
func (n *refusingNode) refuse(body []byte) bool {
	var c rpcCall
	if json.Unmarshal(body, &c) != nil || c.Method != "eth_getLogs" || len(c.Params) != 1 {
		return false
	}
	topics := c.Params[0].Topics
	return len(topics) >= 3 && string(topics[2]) != "null"
}

// refusalFor is the JSON-RPC error answer to the call in body.
func refusalFor(body []byte) []byte {
	var c rpcCall
	_ = json.Unmarshal(body, &c)
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.ID, "error": map[string]any{"code": -32005, "message": refusal}})
	return out
}
