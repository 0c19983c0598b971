"""The pages, by family: the board and its hands (`board`), the lists of matches, a new one,
imports and exports (`matches`), nights and players (`records`), groups (`groups`), money
between the weeks (`ledger`), accounts (`accounts`). What several share is in `common`; the
refusals in words, which the middleware sends too, are beside them in `games.responses`."""
