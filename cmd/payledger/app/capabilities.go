package app

// Capability is an optional capability of the service, on or off, and why (DESIGN 10): serve
// logs them in one "capabilities" line at start.
type Capability struct {
	Name string `json:"name"`
	On   bool   `json:"on"`
	Why  string `json:"why"`
}

// Capabilities are the optional capabilities this configuration switches on or off. Everything
// else (Idempotency-Key, exports, endpoints, sessions, the dashboard) is always on.
func (c Config) Capabilities() []Capability {
	chainOn := c.Chain.Dial != nil
	out := []Capability{
		onOff("chain", chainOn, "ETH_RPC_URL is set", "ETH_RPC_URL is unset: payments by address stay pending"),
		onOff("deposits", chainOn && c.Deposits != nil, "deposit factory known; detection runs on the chain",
			"no chain, or no deposit factory (DEPOSIT_FACTORY, or CHAIN_OPERATOR_KEY to deploy one): receipts get no deposit address"),
		onOff("refund_verification", chainOn, "ETH_RPC_URL is set: refund hashes are proven on chain",
			"ETH_RPC_URL is unset: refund claims with a hash stay pending"),
		onOff("sweeps", c.Deposits != nil && c.Chain.SplitOperator != nil, "deposit factory and CHAIN_OPERATOR_KEY",
			"needs a deposit factory and CHAIN_OPERATOR_KEY: paid deposits stay on their addresses"),
		onOff("split_distribution", c.Chain.SplitOperator != nil, "CHAIN_OPERATOR_KEY is set",
			"CHAIN_OPERATOR_KEY is unset: splits are neither deployed nor released"),
		onOff("subscriptions", c.Subscriptions.Operator != "", "CHAIN_OPERATOR_KEY, SPEND_PERMISSION_MANAGER and USDC in CHAIN_TOKENS",
			"needs CHAIN_OPERATOR_KEY, SPEND_PERMISSION_MANAGER and USDC in CHAIN_TOKENS: creation answers 503"),
		onOff("subscription_charging", c.Chain.Charger != nil || (c.Chain.ChargeOperator != nil && c.Subscriptions.Operator != ""),
			"subscriptions configured; while the node has not answered, charges wait for it (chain_unavailable)",
			"needs subscriptions and ETH_RPC_URL: the charging routes answer 503"),
		onOff("onramp", c.Processor != nil, "PROCESSOR_API_URL is set", "PROCESSOR_API_URL is unset: card payments answer 503"),
		onOff("replica_reads", c.ReplicaPool != nil,
			"DATABASE_REPLICA_URL is set: lists, exports, search, GraphQL and the dashboard's list go to a replica while it keeps up (a down or lagging replica is a stuck \"replica probe\" in /healthz)",
			"DATABASE_REPLICA_URL is unset: every read goes to the primary"),
	}
	return out
}

func onOff(name string, on bool, whyOn, whyOff string) Capability {
	if on {
		return Capability{Name: name, On: true, Why: whyOn}
	}
	return Capability{Name: name, Why: whyOff}
}

// CapabilitiesOff names the optional capabilities this configuration leaves off: /healthz lists
// them (names only: why is in serve's "capabilities" line, not on a public route).
func (c Config) CapabilitiesOff() []string {
	var off []string
	for _, capability := range c.Capabilities() {
		if !capability.On {
			off = append(off, capability.Name)
		}
	}
	return off
}
