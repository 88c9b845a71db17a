"""The one words layer: how supervision reads in people's words, for every front end.

Finding stories (`story`), human names for wire ids (`names`), the status table's cells
(`cells`) and the triage report's Markdown (`report`) are written here once, as plain
strings, and the app, the headless commands, the report and the report screen all use them.
Glyphs, state words, ages and short ids are the atoms below them, in `t3tui.model.labels`
(the model's own JSON documents need them too). A new sentence goes here, once; never in a
front end. This package imports only the model and the protocol: no Textual, no rich, no
client, no front end.
"""
