package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/labstack/echo/v4"
)

// readBody reads the whole request body (the body limit answers 413).
func readBody(c echo.Context) ([]byte, error) {
	b, err := io.ReadAll(c.Request().Body)
	if err != nil {
		var he *echo.HTTPError
		if errors.As(err, &he) {
			return nil, he
		}
		return nil, InvalidInput("Invalid request parameters: unreadable body")
	}
	return b, nil
}

// decodeBytes decodes b strictly: one JSON value, known fields only.
func decodeBytes(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return InvalidInput(describeJSONError(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return InvalidInput("Invalid request parameters: body must hold a single JSON value")
	}
	return nil
}

// DecodeJSON reads the request body as one JSON value into v. Malformed JSON, a value of the
// wrong type, unknown fields or trailing data give 400 invalid_input naming the problem.
func DecodeJSON(c echo.Context, v any) error {
	b, err := readBody(c)
	if err != nil {
		return err
	}
	return decodeBytes(b, v)
}

func describeJSONError(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return "Invalid request parameters: body is empty"
	case errors.As(err, &syn):
		return fmt.Sprintf("Invalid request parameters: malformed JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("Invalid request parameters: field %q must be %s", typ.Field, typ.Type.String())
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "Invalid request parameters: unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	}
	return "Invalid request parameters"
}
