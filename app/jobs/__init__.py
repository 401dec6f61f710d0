"""Jobs over stored documents: listing and finding them, rendering pages, reembed, relink, version stamps."""
