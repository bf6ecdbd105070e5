package store

// migrateTokens are Migrate's continuation tokens, "m1.", made by a
// match specification: the layout of Select's and IndexScan's tokens
// (token.go), with the flags byte's bit saying whether a dry run made
// it, so that a dry run's token cannot start a migration past keys the
// dry run only counted. They always hold a key: the last one a step
// read.
var migrateTokens = &tokenFormat{
	prefix: "m1.", minKey: 1, made: "the migration's specification",
	direction: func(dry bool) string {
		if dry {
			return "it resumes a dry run, not a migration"
		}
		return "it resumes a migration, not a dry run"
	},
}

func encodeMigrateToken(specID string, dry bool, key []byte) string {
	return migrateTokens.encode(specIDBytes(specID), dry, key)
}

func decodeMigrateToken(tok, specID string, dry bool) ([]byte, error) {
	return migrateTokens.decode(tok, specIDBytes(specID), dry)
}
