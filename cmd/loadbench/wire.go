package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// wireClient is one keep-alive HTTP/1.1 connection that sends prebuilt requests and reads the
// answers itself. The load generator shares the two cores with the service it measures; net/http's
// client (transport, header maps, goroutines per connection) cost about 110 µs of them per
// request, which the service then did not get. Like wrk, this client does the least a client can.
type wireClient struct {
	addr string
	conn net.Conn
	r    *bufio.Reader
	body []byte
}

// request is a prebuilt HTTP/1.1 request.
func request(method, host, path, key, body string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n", method, path, host)
	if key != "" {
		fmt.Fprintf(&b, "Ocp-Apim-Subscription-Key: %s\r\n", key)
	}
	if body != "" {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n")
	b.WriteString(body)
	return b.Bytes()
}

// do sends req and returns the answer's status and body (valid until the next call). A broken
// connection is redialled on the next call.
func (c *wireClient) do(req []byte) (int, []byte, error) {
	if c.conn == nil {
		conn, err := net.DialTimeout("tcp", c.addr, 5*time.Second)
		if err != nil {
			return 0, nil, err
		}
		c.conn, c.r = conn, bufio.NewReaderSize(conn, 16<<10)
	}
	_ = c.conn.SetDeadline(time.Now().Add(10 * time.Second))
	status, closing, err := c.roundTrip(req)
	if err != nil || closing {
		_ = c.conn.Close()
		c.conn = nil
	}
	return status, c.body, err
}

// call is do for a request that must succeed (status below 300).
func (c *wireClient) call(req []byte) ([]byte, error) {
	status, body, err := c.do(req)
	if err == nil && status >= 300 {
		err = fmt.Errorf("%d %s", status, body)
	}
	return body, err
}

// roundTrip writes req and reads the answer; closing says the server will close the connection.
func (c *wireClient) roundTrip(req []byte) (status int, closing bool, err error) {
	if _, err := c.conn.Write(req); err != nil {
		return 0, false, err
	}
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return 0, false, err
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, false, fmt.Errorf("bad status line %q", line)
	}
	if status, err = strconv.Atoi(string(line[9:12])); err != nil {
		return 0, false, fmt.Errorf("bad status line %q", line)
	}
	length, chunked := -1, false
	for {
		h, err := c.r.ReadSlice('\n')
		if err != nil {
			return 0, false, err
		}
		h = bytes.TrimRight(h, "\r\n")
		if len(h) == 0 {
			break
		}
		name, value, _ := bytes.Cut(h, []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil {
				return 0, false, fmt.Errorf("bad Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			closing = bytes.EqualFold(value, []byte("close"))
		}
	}
	c.body = c.body[:0]
	switch {
	case chunked:
		err = c.readChunked()
	case length >= 0:
		c.body = append(c.body, make([]byte, length)...)
		_, err = io.ReadFull(c.r, c.body)
	default:
		return 0, false, errors.New("answer without a length")
	}
	return status, closing, err
}

func (c *wireClient) readChunked() error {
	for {
		line, err := c.r.ReadSlice('\n')
		if err != nil {
			return err
		}
		size, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.SplitN(line, []byte(";"), 2)[0])), 16, 64)
		if err != nil {
			return fmt.Errorf("bad chunk size %q", line)
		}
		if size == 0 {
			for { // trailers, then the blank line
				t, err := c.r.ReadSlice('\n')
				if err != nil {
					return err
				}
				if len(bytes.TrimRight(t, "\r\n")) == 0 {
					return nil
				}
			}
		}
		n := len(c.body)
		c.body = append(c.body, make([]byte, size)...)
		if _, err := io.ReadFull(c.r, c.body[n:]); err != nil {
			return err
		}
		if _, err := c.r.Discard(2); err != nil { // CRLF after the chunk
			return err
		}
	}
}
