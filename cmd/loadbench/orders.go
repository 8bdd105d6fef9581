package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// The order phases: POST /api/orders and GET /api/receipts/status with the merchant's key, after
// the raw-SQL ceiling and before the order's rows written as plain SQL (plainsql.go).

// orderFigures are what the A/B rounds compare (ab.go): the order phase, the order's rows as
// plain SQL and the raw-SQL ceiling in the same run, and the service's peak resident memory (KiB).
type orderFigures struct {
	orders, floor, ceiling result
	rss                    int64
}

// orderPhases measures the order phases and their references, prints them, and returns the
// order figures.
func orderPhases(ctx context.Context, dbURL, addr, key string, servePid, clients int, duration time.Duration) (orderFigures, error) {
	ceiling, err := rawCeiling(ctx, dbURL, servePid, clients, 10*time.Second)
	if err != nil {
		return orderFigures{}, err
	}
	wires := make([]*wireClient, clients)
	for i := range wires {
		wires[i] = &wireClient{addr: addr}
	}
	orders, ids := ordersPhase(servePid, addr, key, wires, duration)
	if len(ids) == 0 {
		return orderFigures{}, fmt.Errorf("no order succeeded")
	}
	status := statusPhase(servePid, addr, key, ids, wires, duration)
	floor, err := orderRowsFloor(ctx, dbURL, servePid, clients, 10*time.Second)
	if err != nil {
		return orderFigures{}, err
	}
	figures := orderFigures{orders: orders, floor: floor, ceiling: ceiling, rss: peakRSS(servePid)}
	printOrders(orders, status, ceiling, floor, figures.rss)
	return figures, nil
}

// ordersPhase creates orders of three lines from every wire for d, and returns the receipt ids of
// the first 5,000 or so for the status phase.
func ordersPhase(servePid int, addr, key string, wires []*wireClient, d time.Duration) (result, []string) {
	order := request(http.MethodPost, addr, "/api/orders", key,
		`{"items":[{"sku":"latte","qty":2},{"sku":"beans","qty":1},{"sku":"mug","qty":1}],"jurisdictionCode":"US-CA"}`)
	var idsMu sync.Mutex
	var ids []string
	orders := measured(servePid, "orders", "POST /api/orders (3 lines)", len(wires), d, func(w int) error {
		body, err := wires[w].call(order)
		if err != nil {
			return err
		}
		idsMu.Lock()
		enough := len(ids) >= 5000
		idsMu.Unlock()
		if enough {
			// The status phase has its receipts: the client, which shares the two cores with the
			// service, stops decoding the answers (their status code is still checked).
			return nil
		}
		var resp struct {
			Receipt struct {
				ReceiptID string `json:"receiptId"`
			} `json:"receipt"`
		}
		if err := json.Unmarshal(body, &resp); err != nil {
			return err
		}
		idsMu.Lock()
		ids = append(ids, resp.Receipt.ReceiptID)
		idsMu.Unlock()
		return nil
	})
	return orders, ids
}

// statusPhase reads the status of the receipts ids, in turn, from every wire for d.
func statusPhase(servePid int, addr, key string, ids []string, wires []*wireClient, d time.Duration) result {
	reads := make([][]byte, len(ids))
	for i, id := range ids {
		reads[i] = request(http.MethodGet, addr, "/api/receipts/status?receiptId="+url.QueryEscape(id), key, "")
	}
	var n atomic.Int64
	return measured(servePid, "status", "GET /api/receipts/status", len(wires), d, func(w int) error {
		_, err := wires[w].call(reads[int(n.Add(1))%len(reads)])
		return err
	})
}

// printOrders prints the order phases next to the raw-SQL ceiling and the order's rows as plain
// SQL (both in writes per second), the service's peak memory (rss, KiB), and the CPU per request
// (per write for the references, which run no service: what an order's rows cost the machine
// without it).
func printOrders(orders, status, ceiling, floor result, rss int64) {
	fmt.Printf("\n| measure | requests/s | p50 | p99 | errors |\n|---|---|---|---|---|\n")
	for _, r := range []result{orders, status} {
		fmt.Printf("| %s | %.0f | %s | %s | %d of %d |\n", r.name, r.perSecond, r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond), r.errors, r.requests)
	}
	for _, r := range []result{ceiling, floor} {
		fmt.Printf("| %s | %.0f | | | |\n", r.name, r.perSecond)
	}
	fmt.Printf("\norder creation = %.0f%% of the raw-SQL ceiling (the order's rows alone, written as plain SQL: %.0f%%); serve peak resident memory (VmHWM) = %.1f MiB\n",
		100*orders.perSecond/ceiling.perSecond, 100*floor.perSecond/ceiling.perSecond, float64(rss)/1024)
	fmt.Printf("\nCPU per request (µs; PostgreSQL for the benchmark database (its backends and their server's background processes), the service, this load generator, whole machine), and the phase's CPU time the hypervisor gave to other machines (a virtual machine's noise, not a cost of this one):\n| phase | PostgreSQL | serve | client | machine busy | stolen in the phase |\n|---|---|---|---|---|---|\n")
	for _, r := range []result{orders, status, ceiling, floor} {
		fmt.Printf("| %s | %.0f | %.0f | %.0f | %.0f | %s |\n", r.name, r.perRequest(r.cpu.postgres), r.perRequest(r.cpu.serve), r.perRequest(r.cpu.client), r.perRequest(r.cpu.busy), r.cpu.steal)
	}
	printIssue38(orders, floor.perSecond)
}

// printIssue38 prints issue 38's two order figures beside their targets (docs/benchmarks.md keeps
// them with the same-run references: the figures move with the machine's load, so they compare
// only with another binary measured in the same run, `-bin`).
func printIssue38(orders result, floor float64) {
	if orders.requests == 0 || floor == 0 {
		return
	}
	fmt.Printf("\nissue 38 figure: serve CPU per order %.0f µs (target <= 160 µs on the machine the issue was filed on; elsewhere half of 1b1329e's in the same run: -against 1b1329e)\n",
		orders.perRequest(orders.cpu.serve))
	fmt.Printf("issue 38 figure: POST /api/orders %.0f/s = %.0f%% of the order's own rows as plain SQL, %.0f/s (target >= 100%%)\n",
		orders.perSecond, 100*orders.perSecond/floor, floor)
}
