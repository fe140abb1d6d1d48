"""The results table: its role-driven model, the view and delegates that paint it, the compare bar
and the score distributions."""
