"""The `trackerkit` command's groups, one module each; `trackerkit.cli` puts them together.

    options    the options and argument types `simulate` and `eval` share (`--model`, `--data`)
    terminal   what reaches the terminal: control characters shown, errors as one line
    scene      the scene a command is given, read and refused up front; the `prompt` command
    trackers   the tracker commands: `check`
    simulate   `simulate` and `changes`: a scene's scripted turns played
    formats    `import` and `export`: other tools' formats in and out

Each group's `register_*` adds its sub-commands to the parser, the handler stored as `func`;
every handler runs one library call and prints. A module here is private to the command line:
code outside this package takes the names it shares from `trackerkit.cli`.
"""

__all__: list[str] = []
