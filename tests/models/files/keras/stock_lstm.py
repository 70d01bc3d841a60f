"""A stacked LSTM price forecaster as the tutorials write it (Keras 2 imports and input_shape=)."""

from keras.layers import LSTM, Dense, Dropout
from keras.models import Sequential

look_back = 60
n_features = 1
units = [50, 50, 50, 50]

regressor = Sequential()
for i, n in enumerate(units):
    last = i == len(units) - 1
    if i == 0:
        regressor.add(LSTM(units=n, return_sequences=not last, input_shape=(look_back, n_features)))
    else:
        regressor.add(LSTM(units=n, return_sequences=not last))
    regressor.add(Dropout(0.2))
regressor.add(Dense(units=1))
regressor.compile(optimizer="adam", loss="mean_squared_error")
