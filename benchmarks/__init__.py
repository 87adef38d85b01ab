"""Speed and memory figures for trackerkit; run them all with `make bench`."""
