// Command loadbench measures the HTTP service under load, next to a raw-SQL ceiling measured in
// the same run on the same machine, and reports the service's peak resident memory.
//
// It builds and starts `payledger serve` on a fresh database, signs up a merchant (EIP-712 login,
// split, three inventory items; service.go), then runs 16 concurrent clients against POST
// /api/orders and GET /api/receipts/status (orders.go); before those (users.go), GET
// /api/users/search over 100,000 users and a GraphQL leaderboard, each next to the same
// statements as plain SQL. run below is the whole program, its phases in the order they run.
// `make bench` runs it.
package main

import (
	"context"
	"crypto/ecdsa"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
)

// defaultServer is the PostgreSQL server loadbench creates its databases on unless -db names one.
const defaultServer = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

func main() {
	base := flag.String("db", defaultServer, "PostgreSQL server (a fresh database is created on it)")
	duration := flag.Duration("duration", 30*time.Second, "length of each load phase")
	clients := flag.Int("clients", 16, "concurrent clients")
	prebuilt := flag.String("bin", "", "a payledger binary to measure instead of building ./cmd/payledger (A/B comparisons)")
	usersDuration := flag.Duration("users-duration", 10*time.Second, "length of each users phase (users.go; 0 skips them)")
	onlyUsers := flag.Bool("only-users", false, "run only the users phases")
	against := flag.String("against", "", "a git revision whose service is measured in alternating rounds with this one's, order phases only (ab.go)")
	rounds := flag.Int("rounds", 2, "rounds of each binary with -against")
	pairs := flag.Int("pairs", 0, "with -against: instead of whole rounds, run both services side by side and alternate this many pairs of order bursts of -duration each (interleave.go)")
	flag.Parse()
	var err error
	if *against != "" && *pairs > 0 {
		err = interleave(*base, *duration, *clients, *prebuilt, *against, *pairs)
	} else if *against != "" {
		err = alternate(*base, *duration, *clients, *prebuilt, *against, *rounds)
	} else {
		_, err = run(*base, *duration, *clients, *prebuilt, *usersDuration, *onlyUsers)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

type result struct {
	name      string
	requests  int64
	errors    int64
	perSecond float64
	p50, p99  time.Duration
	cpu       cpuTotals // CPU used during the phase
}

// perRequest is d per request of r, in µs (a CPU time's share of each).
func (r result) perRequest(d time.Duration) float64 {
	if r.requests == 0 {
		return 0
	}
	return float64(d.Microseconds()) / float64(r.requests)
}

// measured is load with the CPU used meanwhile and, with LOADBENCH_PPROF_ADDR, the service's
// CPU profile of the phase (loadbench-<profileName>.pprof; none when profileName is empty).
func measured(servePid int, profileName, name string, clients int, d time.Duration, fn func(client int) error) result {
	before := cpuNow(servePid)
	profiled := profile(profileName, d)
	r := load(name, clients, d, fn)
	r.cpu = cpuNow(servePid).since(before)
	<-profiled
	return r
}

// run measures one service binary (prebuilt, or this checkout's) and returns its order figures.
func run(base string, duration time.Duration, clients int, prebuilt string, usersDuration time.Duration, onlyUsers bool) (orderFigures, error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "loadbench")
	if err != nil {
		return orderFigures{}, err
	}
	defer os.RemoveAll(dir)
	bin, err := payledgerBinary(prebuilt, dir)
	if err != nil {
		return orderFigures{}, err
	}
	l, err := launch(ctx, base, bin, clients)
	if err != nil {
		return orderFigures{}, err
	}
	defer l.stop()
	svc, dbURL, key, admin := l.svc, l.dbURL, l.key, l.admin
	var users []result
	if usersDuration > 0 {
		wallet := strings.ToLower(crypto.PubkeyToAddress(admin.PublicKey).Hex())
		if users, err = usersPhases(ctx, dbURL, svc, wallet, clients, usersDuration); err != nil {
			return orderFigures{}, err
		}
	}
	if onlyUsers {
		printUsers(users)
		fmt.Printf("\nserve peak resident memory (VmHWM) = %.1f MiB\n", float64(peakRSS(svc.pid()))/1024)
		return orderFigures{}, nil
	}
	figures, err := orderPhases(ctx, dbURL, svc.addr, key, svc.pid(), clients, duration)
	if err != nil {
		return orderFigures{}, err
	}
	printUsers(users)
	return figures, nil
}

// launched is a service started on a fresh database with its merchant signed up.
type launched struct {
	svc          *service
	dbURL, key   string
	admin        *ecdsa.PrivateKey
	stopService  func()
	dropDatabase func()
}

// stop stops the service, then drops its database (unless LOADBENCH_KEEP_DB is set).
func (l *launched) stop() {
	l.stopService()
	l.dropDatabase()
}

// launch creates a fresh database on base, starts bin's service on it and signs up a merchant
// (service.go); stop undoes it.
func launch(ctx context.Context, base, bin string, clients int) (*launched, error) {
	dbURL, drop, err := freshDatabase(ctx, base)
	if err != nil {
		return nil, err
	}
	if os.Getenv("LOADBENCH_KEEP_DB") != "" {
		fmt.Fprintln(os.Stderr, "loadbench: keeping", dbURL)
		drop = func() {}
	}
	admin, _ := crypto.GenerateKey()
	svc, err := startService(bin, dbURL, admin)
	if err != nil {
		drop()
		return nil, err
	}
	l := &launched{svc: svc, dbURL: dbURL, admin: admin, stopService: svc.stop, dropDatabase: drop}
	baseURL := "http://" + svc.addr
	if err := svc.waitUp(); err != nil {
		l.stop()
		return nil, err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients * 2}, Timeout: 10 * time.Second}
	if l.key, err = signUp(client, baseURL, svc, admin); err != nil {
		l.stop()
		return nil, err
	}
	return l, nil
}

// load runs fn from clients goroutines (each passing its index) for d and reports throughput and
// latency.
func load(name string, clients int, d time.Duration, fn func(client int) error) result {
	var mu sync.Mutex
	var lat []time.Duration
	var errs, total atomic.Int64
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			for time.Now().Before(deadline) {
				t := time.Now()
				err := fn(w)
				local = append(local, time.Since(t))
				total.Add(1)
				if err != nil {
					if errs.Add(1) <= 3 {
						fmt.Fprintln(os.Stderr, name, err)
					}
				}
			}
			mu.Lock()
			lat = append(lat, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[int(float64(len(lat)-1)*p)]
	}
	return result{name: name, requests: total.Load(), errors: errs.Load(), perSecond: float64(total.Load()-errs.Load()) / elapsed.Seconds(), p50: pct(0.5), p99: pct(0.99)}
}
