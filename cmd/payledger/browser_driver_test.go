package main

// The browser side of TestPaymentPageInBrowser: the injected wallet and chromium helpers.

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"
)

// wallet is the injected EIP-1193 provider's Go side: it answers the page's requests for one
// development account and records what it was asked.
type wallet struct {
	mu       sync.Mutex
	key      *ecdsa.PrivateKey
	account  common.Address
	chainID  string // what eth_chainId answers (starts on another chain, to exercise switching)
	reject   bool   // eth_sendTransaction: the user rejects
	short    bool   // eth_sendTransaction: one base unit less than asked (a tampered wallet)
	calls    []string
	added    []map[string]any
	sentHash string
}

const providerJS = `(function () {
  var pending = {}, n = 0;
  window.__ethResolve = function (id, ok, value) {
    var p = pending[id]; delete pending[id];
    if (!p) return;
    if (ok) p.resolve(value); else { var e = new Error(value.message); e.code = value.code; p.reject(e); }
  };
  window.ethereum = { isPayledgerTestWallet: true, request: function (args) {
    return new Promise(function (resolve, reject) {
      var id = ++n; pending[id] = { resolve: resolve, reject: reject };
      window.__ethBridge(JSON.stringify({ id: id, method: args.method, params: args.params || [] }));
    });
  } };
})();`

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (w *wallet) handle(ctx context.Context, e *portalEnv, method string, params []json.RawMessage) (any, *rpcError) {
	w.mu.Lock()
	w.calls = append(w.calls, method)
	w.mu.Unlock()
	switch method {
	case "eth_requestAccounts", "eth_accounts":
		return []string{w.account.Hex()}, nil
	case "eth_chainId":
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.chainID, nil
	case "wallet_switchEthereumChain":
		w.mu.Lock()
		defer w.mu.Unlock()
		if len(w.added) == 0 {
			return nil, &rpcError{4902, "Unrecognized chain ID. Try adding the chain using wallet_addEthereumChain first."}
		}
		w.chainID = hexutil.EncodeUint64(e.dev.ChainID)
		return nil, nil
	case "wallet_addEthereumChain":
		var p map[string]any
		_ = json.Unmarshal(params[0], &p)
		w.mu.Lock()
		defer w.mu.Unlock()
		w.added = append(w.added, p)
		w.chainID = hexutil.EncodeUint64(e.dev.ChainID)
		return nil, nil
	case "eth_sendTransaction":
		if w.reject {
			return nil, &rpcError{4001, "User rejected the request."}
		}
		var tx struct {
			From  common.Address `json:"from"`
			To    common.Address `json:"to"`
			Data  hexutil.Bytes  `json:"data"`
			Value *hexutil.Big   `json:"value"`
		}
		if err := json.Unmarshal(params[0], &tx); err != nil {
			return nil, &rpcError{-32602, err.Error()}
		}
		if tx.From != w.account {
			return nil, &rpcError{4100, "unknown account " + tx.From.Hex()}
		}
		value := new(big.Int)
		if tx.Value != nil {
			value = tx.Value.ToInt()
		}
		w.mu.Lock()
		short := w.short
		w.mu.Unlock()
		if short && len(tx.Data) == 68 { // transfer(address,uint256): the amount is the last word
			amount := new(big.Int).Sub(new(big.Int).SetBytes(tx.Data[36:]), big.NewInt(1))
			tx.Data = append(tx.Data[:36:36], common.LeftPadBytes(amount.Bytes(), 32)...)
		}
		hash, err := sendSigned(ctx, e.eth, w.key, e.dev.ChainID, tx.To, value, tx.Data)
		if err != nil {
			return nil, &rpcError{-32000, err.Error()}
		}
		w.mu.Lock()
		w.sentHash = hash
		w.mu.Unlock()
		return hash, nil
	}
	// Reads (eth_call, eth_getBalance, ...) go to the development chain as they are.
	args := make([]any, len(params))
	for i, p := range params {
		args[i] = p
	}
	var raw json.RawMessage
	if err := e.rpc.CallContext(ctx, &raw, method, args...); err != nil {
		return nil, &rpcError{-32603, err.Error()}
	}
	return raw, nil
}

func sendSigned(ctx context.Context, ec *ethclient.Client, key *ecdsa.PrivateKey, chainID uint64, to common.Address, value *big.Int, data []byte) (string, error) {
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := ec.PendingNonceAt(ctx, from)
	if err != nil {
		return "", err
	}
	gas, err := ec.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Value: value, Data: data})
	if err != nil {
		return "", err
	}
	price, err := ec.SuggestGasPrice(ctx)
	if err != nil {
		return "", err
	}
	tx, err := types.SignTx(types.NewTransaction(nonce, to, value, gas, price, data), types.LatestSignerForChainID(new(big.Int).SetUint64(chainID)), key)
	if err != nil {
		return "", err
	}
	return tx.Hash().Hex(), ec.SendTransaction(ctx, tx)
}

// browser starts chromium with the wallet injected in every page of its tab.
func (e *portalEnv) browser(t *testing.T, w *wallet) context.Context {
	t.Helper()
	// A fresh profile, removed by hand: chromium's helper processes may still write to it for a
	// moment after the browser is gone, which t.TempDir's strict cleanup reports as a failure.
	profile, err := os.MkdirTemp("", "payledger-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for i := 0; i < 20; i++ {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints"), chromedp.Flag("no-proxy-server", true),
		chromedp.UserDataDir(profile), chromedp.WindowSize(1280, 900),
		// A bound on chromium's start, not a wait: the default 20 s was passed once in CI while
		// the whole suite ran on two cores ("websocket url timeout reached").
		chromedp.WSURLReadTimeout(2 * time.Minute),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	chromedp.ListenTarget(ctx, func(ev any) {
		b, ok := ev.(*runtime.EventBindingCalled)
		if !ok || b.Name != "__ethBridge" || w == nil {
			return
		}
		go func() {
			var req struct {
				ID     int               `json:"id"`
				Method string            `json:"method"`
				Params []json.RawMessage `json:"params"`
			}
			if err := json.Unmarshal([]byte(b.Payload), &req); err != nil {
				return
			}
			res, rerr := w.handle(ctx, e, req.Method, req.Params)
			ok, val := true, any(res)
			if rerr != nil {
				ok, val = false, rerr
			}
			vb, _ := json.Marshal(val)
			_ = chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf("window.__ethResolve(%d, %t, %s)", req.ID, ok, vb), nil))
		}()
	})
	if err := chromedp.Run(ctx, runtime.AddBinding("__ethBridge"), chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(providerJS).Do(ctx)
		return err
	})); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// waitJS evaluates expr until it is true (chromedp.Poll compiles its predicate with new
// Function, which the page's CSP forbids; Runtime.evaluate is not subject to it).
func waitJS(t *testing.T, ctx context.Context, expr string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var ok bool
		err := chromedp.Run(ctx, chromedp.Evaluate("!!("+expr+")", &ok))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			var dump string
			_ = chromedp.Run(ctx, chromedp.Evaluate(`(document.getElementById("status")||{}).textContent + " | " + (document.getElementById("wallet-error")||{}).textContent + " | " + (document.getElementById("quote-error")||{}).textContent + " | " + location.href`, &dump))
			t.Fatalf("timed out after %v waiting for %s (err %v); page: %s", timeout, expr, err, dump)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func evalString(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	var s string
	if err := chromedp.Run(ctx, chromedp.Evaluate(expr, &s)); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return s
}

func decodeQR(t *testing.T, b []byte) string {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("QR is not a PNG: %v", err)
	}
	// gozxing (v0.1.1) misreads some valid codes as drawn: its finder-pattern search misses about 1
	// in 60, and of 2,000 random payment URIs 26 failed as the pure barcode too (a Reed-Solomon
	// error), while zbarimg read all 26 and gozxing read each once turned a quarter. So each turn
	// is tried, as a phone held at any angle would read it.
	pure := map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_PURE_BARCODE: true}
	var errs []error
	for range 4 {
		bmp, err := gozxing.NewBinaryBitmapFromImage(img)
		if err != nil {
			t.Fatal(err)
		}
		for _, hints := range []map[gozxing.DecodeHintType]any{nil, pure} {
			res, err := zxqr.NewQRCodeReader().Decode(bmp, hints)
			if err == nil {
				return res.GetText()
			}
			errs = append(errs, err)
		}
		img = quarterTurn(img)
	}
	t.Fatalf("QR does not decode at any angle: %v", errs)
	return ""
}

// quarterTurn is img turned 90° clockwise, in grey.
func quarterTurn(img image.Image) image.Image {
	b := img.Bounds()
	out := image.NewGray(image.Rect(0, 0, b.Dy(), b.Dx()))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			out.Set(b.Dy()-1-(y-b.Min.Y), x-b.Min.X, img.At(x, y))
		}
	}
	return out
}

// units is amount (a decimal) times 10^decimals, rounded half up.
func units(amount *big.Rat, decimals int64) *big.Int {
	r := new(big.Rat).Mul(amount, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(decimals), nil)))
	n := new(big.Int).Mul(r.Num(), big.NewInt(2))
	n.Add(n, r.Denom())
	return n.Quo(n, new(big.Int).Mul(r.Denom(), big.NewInt(2)))
}

func screenshot(t *testing.T, ctx context.Context, name string, width, height int64) {
	dir := os.Getenv("PAYLEDGER_SCREENSHOTS")
	if dir == "" {
		return
	}
	var buf []byte
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(width, height), chromedp.Sleep(300*time.Millisecond), chromedp.FullScreenshot(&buf, 100)); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", filepath.Join(dir, name))
}
