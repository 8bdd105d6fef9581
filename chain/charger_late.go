package chain

// A charging chain built before its node answered: serve starts without ETH_RPC_URL answering,
// and subscription charging must come on once it does, without a restart (as split deployment
// does over a LateBackend).

// NewLateChargeOperator is NewChargeOperator for a node that has not answered yet: every call
// that needs the node fails with ErrNotConnected (Connected is false) until Connect gives it one.
// Sender, USDC and the calls' encodings work at once: they need only the key and the addresses.
func NewLateChargeOperator(keyHex string, chainID uint64, tokens []Token, manager string) (*ChargeOperator, error) {
	late := &LateBackend{}
	c, err := newChargeOperator(keyHex, chainID, late, tokens, manager)
	if err != nil {
		return nil, err
	}
	c.late = late
	return c, nil
}

// Connected says whether the operator has its node: always for one NewChargeOperator made, and
// for a late one once Connect was called.
func (c *ChargeOperator) Connected() bool { return c.rpc.Load() != nil }

// Connect gives a late operator its node r (the operator's backend and its batches alike);
// the first call wins, a later one (or one on an operator made connected) changes nothing and
// reports false, so that the caller closes its own r.
func (c *ChargeOperator) Connect(r *RPC) bool {
	c.connecting.Lock()
	defer c.connecting.Unlock()
	if c.late == nil || c.rpc.Load() != nil {
		return false
	}
	c.late.Connect(r.Backend()) // before the batches: a call that finds the node finds the backend too
	c.rpc.Store(r)
	return true
}

// node is the operator's RPC connection; ErrNotConnected until it has one.
func (c *ChargeOperator) node() (*RPC, error) {
	r := c.rpc.Load()
	if r == nil {
		return nil, ErrNotConnected
	}
	return r, nil
}
