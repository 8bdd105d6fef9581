// Package docs carries the documents the binary serves: the OpenAPI description of the API.
package docs

import (
	_ "embed"
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
)

//go:embed openapi.yaml
var openapiYAML []byte

// OpenAPI parses the embedded OpenAPI document. Every operation may answer the error envelope
// with a status it does not list (401, 403, 429, 500…): each gets a `default` response saying so.
func OpenAPI() (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(openapiYAML)
	if err != nil {
		return nil, fmt.Errorf("openapi document: %w", err)
	}
	errResp := doc.Components.Responses["Error"]
	if errResp == nil || errResp.Value == nil {
		return nil, fmt.Errorf("openapi document: components.responses.Error is missing")
	}
	envelope := &openapi3.ResponseRef{Ref: "#/components/responses/Error", Value: errResp.Value}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.Responses == nil {
				op.Responses = openapi3.NewResponses()
			}
			if op.Responses.Default() == nil {
				op.Responses.Set("default", envelope)
			}
		}
	}
	return doc, nil
}

// OpenAPIJSON returns the OpenAPI document as JSON, as served at /api/openapi.json.
func OpenAPIJSON() ([]byte, error) {
	doc, err := OpenAPI()
	if err != nil {
		return nil, err
	}
	return doc.MarshalJSON()
}
