// Package gql is the read-only GraphQL API of DESIGN 8 "Users" (gqlgen): the schema is
// docs/graphql.graphqls, the code in generated.go and models_gen.go is generated from it, the
// resolvers read through Store, and follow counts are batched per request (loader.go).
package gql

//go:generate go tool gqlgen generate --config gqlgen.yml
