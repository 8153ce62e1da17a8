"""One module per `sopstudio` subcommand (discovered by `sopstudio.cli_main`)."""
