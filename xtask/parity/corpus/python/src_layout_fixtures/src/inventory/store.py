class Store:
    def __init__(self):
        self.items = {}

    def add(self, name, qty):
        self.items[name] = self.items.get(name, 0) + qty

    def take(self, name, qty):
        if self.items.get(name, 0) < qty:
            raise KeyError(name)
        self.items[name] -= qty
