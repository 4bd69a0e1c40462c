package engine

import (
	"fmt"
	"strings"

	"rooda/host/agentstream"
	"rooda/host/config"
	"rooda/host/shown"
	"rooda/host/units"
)

// budget is one of a loop's budgets of what its agents spend, and what
// an agent must report for it to count.
type budget struct {
	key, value, where string
	// counts reports whether what an agent of format f reports counts
	// towards it; priced is whether model_prices prices any model.
	counts func(f agentstream.Format, priced bool) bool
}

// budgetsOf are the spending budgets s sets.
func budgetsOf(s *config.Settings) []budget {
	var out []budget
	if v := config.MaxCostUSD.In(s); v.V > 0 {
		out = append(out, budget{key: "max_cost_usd", value: units.Limit(v.V), where: v.Where(), counts: func(f agentstream.Format, priced bool) bool {
			tokens, cost := f.Reports()
			return cost || tokens && priced
		}})
	}
	if v := config.MaxTokens.In(s); v.V > 0 {
		out = append(out, budget{key: "max_tokens", value: shown.Thousands(int64(v.V)), where: v.Where(), counts: func(f agentstream.Format, _ bool) bool {
			tokens, _ := f.Reports()
			return tokens
		}})
	}
	return out
}

// checkBudgets says, before the first iteration and in the dry run, each
// budget that cannot count what an agent of the loop spends, and how to
// make it count: a budget an unattended run relies on must not be void
// unsaid. A loop none of whose budgets can count anything fails under
// strict. A script test's fake agent says what it spent: it counts.
func (p *Plan) checkBudgets(priced bool) {
	p.priced = priced
	if p.Runner != nil {
		return
	}
	if p.Choose != nil && len(p.Agents) > 0 {
		// The first iteration's agent is judged here, the others as
		// they are chosen (warnChosen).
		p.warnedOf = map[string]bool{p.Agents[0]: true}
	}
	budgets := budgetsOf(p.Settings)
	var lines []string
	void := 0
	for _, b := range budgets {
		var uncounted []string
		for i, f := range p.Formats {
			if !b.counts(f, priced) {
				uncounted = append(uncounted, whyUncounted(p.agentName(i), f, b.key))
			}
		}
		p.costUncountedSaid = p.costUncountedSaid || b.key == "max_cost_usd" && len(uncounted) > 0
		switch {
		case len(uncounted) == 0:
			continue
		case len(uncounted) == len(p.Formats):
			void++
			lines = append(lines, fmt.Sprintf("%s %s (%s) cannot be counted: %s", b.key, b.value, b.where, strings.Join(uncounted, "; ")))
		default:
			lines = append(lines, fmt.Sprintf("%s %s (%s) counts only some agents: %s", b.key, b.value, b.where, strings.Join(uncounted, "; ")))
		}
	}
	strict := config.Strict.In(p.Settings)
	if strict.V && len(budgets) > 0 && void == len(budgets) {
		p.fail("No budget can stop this loop", fmt.Errorf("strict (%s) refuses a loop none of whose budgets can be counted:\n%s", strict.Where(), strings.Join(lines, "\n")))
		return
	}
	for _, l := range lines {
		p.caution(l)
	}
}

// warnChosen says, once for each agent a script's agent function
// chooses, each budget that cannot count what it spends: the plan knew
// only the first iteration's agent.
func (p *Plan) warnChosen(agent string, f agentstream.Format) {
	if p.Runner != nil || p.warnf == nil || p.warnedOf[agent] {
		return
	}
	if p.warnedOf == nil {
		p.warnedOf = map[string]bool{}
	}
	p.warnedOf[agent] = true
	for _, b := range budgetsOf(p.Settings) {
		if !b.counts(f, p.priced) {
			p.warnf("%s %s (%s) counts nothing of what %s, chosen by %s, spends: %s", b.key, b.value, b.where, agent, p.Chooser, whyUncounted(agent, f, b.key))
		}
	}
}

// agentName names the agent of turn i.
func (p *Plan) agentName(i int) string {
	if i < len(p.Agents) && p.Agents[i] != "" {
		return p.Agents[i]
	}
	return "the agent"
}

// whyUncounted says why what agent reports in format f does not count
// towards the budget key, and what would make it count.
func whyUncounted(agent string, f agentstream.Format, key string) string {
	switch {
	case f == agentstream.Text:
		return fmt.Sprintf("%s is read as text, which reports no tokens and no cost (an alias with output: reads its CLI's report: docs/agents.md)", agent)
	case f == agentstream.Copilot:
		return fmt.Sprintf("%s (%s) reports no tokens and no cost; -n or --max-duration bound it instead", agent, f)
	case key == "max_cost_usd":
		return fmt.Sprintf("%s (%s) reports tokens but no cost, and model_prices prices no model (model_prices: {MODEL: {input: 3, output: 15}} prices them: docs/agents.md)", agent, f)
	}
	return fmt.Sprintf("%s (%s) reports no tokens", agent, f)
}
