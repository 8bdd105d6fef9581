package main

import (
	"net/url"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/transport"
)

// paymentChain is the chain the payment page asks wallets to pay on: CHAIN_ID and CHAIN_TOKENS,
// once a node is configured (ETH_RPC_URL; none: no QR and no wallet button). The node's URL is
// offered to wallets (wallet_addEthereumChain) only for the development chain on this machine:
// a production ETH_RPC_URL may carry a provider key and is never shown to customers.
func paymentChain(cfg config) transport.PaymentChain {
	if cfg.EthRPCURL == "" {
		return transport.PaymentChain{}
	}
	pc := transport.PaymentChain{ChainID: cfg.ChainID, Name: transport.ChainName(cfg.ChainID)}
	if cfg.ChainID != chain.DevChainID { // the development chain has no explorer
		pc.ExplorerURL = cfg.ExplorerURL
	}
	for _, t := range cfg.ChainTokens {
		pc.Tokens = append(pc.Tokens, transport.PaymentToken{Symbol: t.Symbol, Address: t.Address.Hex(), Decimals: t.Decimals})
	}
	if u, err := url.Parse(cfg.EthRPCURL); err == nil && !cfg.production() && cfg.ChainID == chain.DevChainID &&
		(u.Hostname() == "127.0.0.1" || u.Hostname() == "localhost") && (u.Scheme == "http" || u.Scheme == "https") {
		pc.RPCURL = cfg.EthRPCURL
	}
	return pc
}
