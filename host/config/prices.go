package config

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Price is what a model's tokens cost, in dollars per million tokens:
// model_prices: {name: {input: 3, output: 15, cache_read: 0.3,
// cache_write: 3.75}}. It prices what a CLI that reports no cost spent.
type Price struct {
	Input, Output, CacheRead, CacheWrite float64
}

// Cost is the dollars the tokens cost at p.
func (p Price) Cost(input, output, cacheRead, cacheWrite int64) float64 {
	perToken := func(n int64, dollarsPerMillion float64) float64 { return float64(n) * dollarsPerMillion / 1e6 }
	return perToken(input, p.Input) + perToken(output, p.Output) + perToken(cacheRead, p.CacheRead) + perToken(cacheWrite, p.CacheWrite)
}

// PriceOf is the price of model: the one model_prices names it by, else
// none. A model nobody priced is shown as tokens only, never at a guessed
// price.
func (c *Config) PriceOf(model string) (Price, bool) {
	p, ok := c.Prices[model]
	return p.V, ok && model != ""
}

// priceKeys are the fields of a price, in the order config show writes
// them.
var priceKeys = []string{"input", "output", "cache_read", "cache_write"}

// prices decodes model_prices: {model: {input, output, cache_read,
// cache_write}}, each in dollars per million tokens, input and output
// required.
func (d *decoder) prices(n *yaml.Node, into map[string]Value[Price]) {
	d.mapping(n, "model_prices", nil, func(model string, v *yaml.Node) {
		path := join("model_prices", model)
		var p Price
		fields := map[string]*float64{"input": &p.Input, "output": &p.Output, "cache_read": &p.CacheRead, "cache_write": &p.CacheWrite}
		given := map[string]bool{}
		d.mapping(v, path, priceKeys, func(key string, x *yaml.Node) {
			given[key] = true // wrong or right, it is not missing
			s, ok := d.scalar(x, join(path, key))
			if !ok {
				return
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || f < 0 {
				d.errorf(x, "%s must be dollars per million tokens, a number >= 0, got %q", join(path, key), s)
				return
			}
			*fields[key] = f
		})
		if deref(v).Kind == yaml.MappingNode && (!given["input"] || !given["output"]) {
			d.errorf(v, "%s needs input and output: dollars per million tokens", path)
			return
		}
		into[model] = Value[Price]{V: p, Set: true, Source: d.src, Line: v.Line}
	})
}

// yaml is the price as model_prices: writes it.
func (p Price) yaml() string {
	values := []float64{p.Input, p.Output, p.CacheRead, p.CacheWrite}
	var parts []string
	for i, key := range priceKeys {
		if i < 2 || values[i] != 0 {
			parts = append(parts, key+": "+strconv.FormatFloat(values[i], 'f', -1, 64))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
