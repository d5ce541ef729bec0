"""Terminal front ends (Kiek prompts, the Kismet Textual app); nothing rule-related lives here."""
