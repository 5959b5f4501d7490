"""What one seat can know: the observation of the play, the layouts of the unseen cards
consistent with it, the hint (each legal card's value over those layouts), the trump advice for
one hand, and the review of a played deal as each player saw it.
"""
