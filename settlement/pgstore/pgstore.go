// Package pgstore is the settlement processes' PostgreSQL adapter: the ledgers they keep (the
// operator's transactions, deposit sweeps, subscription charge claims, the deposit detector's
// cursor and chain contracts, payment hints, refund claims) and the queries they run over the
// read models' tables (paid receipts, due payment windows, due subscriptions). It implements the
// ports declared in settlement (and the hint and refund-claim ports of commands); readmodels
// holds the read models and CRUD stores only.
package pgstore

import "github.com/jackc/pgx/v5/pgxpool"

// Receipts is what the settlement processes read of the receipts read model: the paid receipts
// the split distributor releases (PaidReceipts), the payment windows due (DueWindows).
type Receipts struct{ pool *pgxpool.Pool }

// NewReceipts returns the processes' queries over the receipts table on pool.
func NewReceipts(pool *pgxpool.Pool) *Receipts { return &Receipts{pool: pool} }

// Subscriptions is what subscription charging reads of the subscriptions read model
// (DueSubscriptions).
type Subscriptions struct{ pool *pgxpool.Pool }

// NewSubscriptions returns charging's query over the subscriptions table on pool.
func NewSubscriptions(pool *pgxpool.Pool) *Subscriptions { return &Subscriptions{pool: pool} }
