"""faq:import — an import job's rows into an FAQ knowledge base, a batch at a time."""
