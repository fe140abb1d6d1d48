"""What every part of the window shares: the vault session, workers off the GUI thread, the live
and model bridges, the search flow, resources and the theme."""
