"""What a proof is: discovery of proofs/*.py and their PROOF options, their NAME=<json> data lines,
the pinned torch, typed records, and quotes of the pinned torch's source."""
