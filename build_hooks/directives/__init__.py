"""The directives: one registry of every fence (its options, what it reads, its handler), what a
handler receives (Context) and the option check. The hosts read the registry."""
