package transport

import (
	"net/http"
	"time"
)

// outliveTimeouts lifts the server's 30 s read and write deadlines for one response that streams
// by design (an event stream, an export); its handler bounds how long it lives instead. The read
// deadline must go too: once it passes, the connection's background read ends the request's
// context, and with it the stream.
func outliveTimeouts(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
}
