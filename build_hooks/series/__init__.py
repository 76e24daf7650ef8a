"""Renderers of this series' own widgets (depth meter, reading lines, robot check, instruments);
their CSS and JS live in theme/."""
