package transport

import (
	"net/http"
	"time"
)

// streamWriteGrace is how long past its lifetime an event stream's connection still takes
// writes: the server's WriteTimeout, room for what a stream sends as its lifetime ends.
const streamWriteGrace = 30 * time.Second

// outliveTimeouts lifts the server's 30 s read deadline for one event stream and moves its write
// deadline to the end of the stream's lifetime (eventsLifetime, plus streamWriteGrace); its
// handler ends it at that lifetime. The read deadline must go: once it passes, the connection's
// background read ends the request's context, and with it the stream. The write deadline must
// not: a write to a client that stopped reading blocks once the socket's buffers are full, and
// with no deadline it blocked for ever, where no lifetime, shutdown or revocation is looked at,
// holding the stream's slot (of the merchant's, the address's, the instance's), its goroutines and
// its receipt watch.
func outliveTimeouts(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Now().Add(eventsLifetime + streamWriteGrace))
}
