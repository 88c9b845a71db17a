"""Where the app's data comes from: a live server, several environments, recorded frames, a replay."""
