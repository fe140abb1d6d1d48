"""The window: the application start, the main window that wires every widget, its menus, settings,
placement on screen, the search bar and screenshots."""
