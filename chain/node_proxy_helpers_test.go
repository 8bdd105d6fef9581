package chain_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"

	"github.com/ethereum/go-ethereum/rpc"

	"github.com/payledger/payledger/chain"
)

// interceptor answers a request to the node itself (true: a node that lags, refuses or lies),
// from the request's body; proxy forwards a request to the real node (r's body must be set again
// to body first, as nodeProxy does for the requests it forwards).
type interceptor func(w http.ResponseWriter, r *http.Request, body []byte, proxy http.Handler) bool

// nodeProxy is an RPC through a proxy to the node at target: intercept sees every request first,
// and what it does not answer goes to the node.
func nodeProxy(t *testing.T, target string, intercept interceptor) *chain.RPC {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	return rpcServedBy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if intercept(w, r, body, proxy) {
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		proxy.ServeHTTP(w, r)
	}))
}

// rpcServedBy is an RPC of the development chain's id whose node is h.
func rpcServedBy(t *testing.T, h http.Handler) *chain.RPC {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := rpc.DialHTTP(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return chain.NewRPC(c, chain.DevChainID)
}
