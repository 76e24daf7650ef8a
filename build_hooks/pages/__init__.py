"""Reading pages: where each directive sits (locate), what a page quotes from which proof, and
links from a page to a proof's card."""
