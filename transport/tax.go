package transport

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/domain/tax"
)

type componentView struct {
	Name string  `json:"name"`
	Rate float64 `json:"rate"`
}

type jurisdictionView struct {
	Code       string          `json:"code"`
	Name       string          `json:"name"`
	Components []componentView `json:"components"`
	TotalRate  float64         `json:"totalRate"`
}

func (s *Server) taxCatalog(c echo.Context) error {
	filter := strings.TrimSpace(c.QueryParam("jurisdiction"))
	out := []jurisdictionView{}
	for _, j := range tax.All() {
		if filter != "" {
			if found, err := tax.Lookup(filter); err != nil || found.Code != j.Code {
				continue // the jurisdiction an order naming filter is taxed under, and only it
			}
		}
		v := jurisdictionView{Code: j.Code, Name: j.Name, TotalRate: j.Total().Float(), Components: []componentView{}}
		for _, comp := range j.Components {
			v.Components = append(v.Components, componentView{Name: comp.Name, Rate: comp.Rate.Float()})
		}
		out = append(out, v)
	}
	return c.JSON(http.StatusOK, map[string]any{"jurisdictions": out})
}
