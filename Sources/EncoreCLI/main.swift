// The `encore` command-line tool: parse, run, and exit with encore's exit
// codes (0 success, 1 invalid or untrusted input, 2 usage error).
EncoreCommand.runMain()
