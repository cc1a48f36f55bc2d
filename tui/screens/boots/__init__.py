"""The Boots tab and the egg inspector (issue 11 item 6): boot records, and one egg proven."""
